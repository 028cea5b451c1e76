"""An ``@entrypoint``'s ``invoke``/``stream``/``ainvoke`` take LangGraph's deprecated
``checkpoint_during`` (True: durability "async", False: "exit", with a deprecation warning;
with ``durability`` too: ValueError). Durability "exit" saves only the run's last checkpoint,
also when the run stops at an interrupt and is resumed."""

import asyncio
import warnings

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.types import Command, interrupt


@task
def double(x: int) -> int:
    return 2 * x


def _saved(saver: InMemorySaver, config: dict) -> list:
    return [
        (t.metadata["step"], t.metadata["source"], len(t.pending_writes or []))
        for t in saver.list(config)
    ]


def run() -> dict:
    saver = InMemorySaver()

    @entrypoint(checkpointer=saver)
    def main(x: int) -> int:
        return double(double(x).result()).result()

    @entrypoint(checkpointer=saver)
    def asks(x: int) -> str:
        return f"{double(x).result()}:{interrupt('why?')}"

    out: dict = {}
    calls = {
        "invoke": lambda cfg, cd: main.invoke(1, cfg, checkpoint_during=cd),
        "stream": lambda cfg, cd: list(main.stream(1, cfg, checkpoint_during=cd)),
        "ainvoke": lambda cfg, cd: asyncio.run(main.ainvoke(1, cfg, checkpoint_during=cd)),
    }
    for name, call in calls.items():
        for during in (True, False):
            config = {"configurable": {"thread_id": f"{name}-{during}"}}
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = call(config, during)
            out[f"{name}-{during}"] = {
                "result": result,
                "warned": sorted({type(w.message).__name__ for w in caught}),
                "saved": _saved(saver, config),
            }
    try:
        main.invoke(
            1, {"configurable": {"thread_id": "both"}}, checkpoint_during=True, durability="sync"
        )
    except ValueError as e:
        out["both"] = str(e)
    config = {"configurable": {"thread_id": "asks"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = asks.invoke(3, config, checkpoint_during=False)
        out["asked"] = [i.value for i in first["__interrupt__"]]
        out["asked-saved"] = _saved(saver, config)
        out["answered"] = asks.invoke(Command(resume="because"), config, checkpoint_during=False)
    out["answered-saved"] = _saved(saver, config)
    return out
