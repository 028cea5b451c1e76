"""The functional API as people write a chat-ish workflow: entrypoint.final (a return value
different from what is saved), `previous` across invocations, task futures gathered in
order, an interrupt inside a task and two parallel tasks that interrupt answered by id, the
stream of updates/custom/values, and get_state between calls."""

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.func import entrypoint, task
from langgraph.types import Command, interrupt


@task
def double(x: int) -> int:
    get_stream_writer()({"double": x})
    return x * 2


@task
def ask(topic: str) -> str:
    answer = interrupt({"topic": topic})
    return f"{topic}={answer}"


@entrypoint(checkpointer=InMemorySaver())
def counter(n: int, *, previous: int | None = None) -> entrypoint.final[str, int]:
    total = (previous or 0) + sum(f.result() for f in [double(i) for i in range(n)])
    return entrypoint.final(value=f"total {total}", save=total)


@entrypoint(checkpointer=InMemorySaver())
def survey(topics: list[str]) -> dict:
    futures = [ask(t) for t in topics]
    return {"answers": [f.result() for f in futures]}


@entrypoint(checkpointer=InMemorySaver())
def single(x: str) -> str:
    first = ask(x).result()
    second = ask(first).result()
    return second


def run():
    out = {}
    cfg = {"configurable": {"thread_id": "c"}}
    out["c1"] = counter.invoke(3, cfg)
    out["c1_state"] = [counter.get_state(cfg).values, list(counter.get_state(cfg).next)]
    out["c2"] = list(
        counter.stream(1, cfg, stream_mode=["updates", "custom", "values"])
    )  # one task: threads race
    out["c2_state"] = counter.get_state(cfg).values
    out["c_history"] = [
        (h.values, h.metadata["step"], h.metadata["source"]) for h in counter.get_state_history(cfg)
    ]

    scfg = {"configurable": {"thread_id": "s"}}
    first = list(survey.stream(["a", "b"], scfg, stream_mode="updates"))
    out["s_first"] = first
    st = survey.get_state(scfg)
    ids = [i.id for i in st.interrupts]
    vals = [i.value for i in st.interrupts]
    out["s_pending"] = sorted(map(str, vals))
    answers = {i.id: f"ans-{i.value['topic']}" for i in st.interrupts}
    if len(ids) == 1:
        out["s_second"] = survey.invoke(Command(resume=answers), scfg)
        st = survey.get_state(scfg)
        answers = {i.id: f"ans-{i.value['topic']}" for i in st.interrupts}
    out["s_done"] = survey.invoke(Command(resume=answers), scfg)
    out["s_state"] = survey.get_state(scfg).values

    one = {"configurable": {"thread_id": "one"}}
    out["one_1"] = single.invoke("x", one)
    out["one_2"] = single.invoke(Command(resume="y"), one)
    out["one_3"] = single.invoke(Command(resume="z"), one)
    out["one_hist"] = [(h.metadata["step"], list(h.next)) for h in single.get_state_history(one)]
    return out
