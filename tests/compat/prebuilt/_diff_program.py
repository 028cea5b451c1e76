# ruff: noqa: E402 - the façade shim must be installed before langgraph is imported
"""A program run under real langgraph and under the façade (argv[1]: "langgraph" or
"superstep"); it prints one JSON object of normalised observations per case."""

import asyncio
import json
import re
import sys
import warnings
from typing import Annotated, Any

warnings.simplefilter("ignore")
if sys.argv[1] == "superstep":
    from superstep_compat.shim import install

    install()

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph, add_messages
from langgraph.prebuilt import (
    InjectedState,
    InjectedStore,
    ToolNode,
    ToolRuntime,
    create_react_agent,
    tools_condition,
)
from langgraph.prebuilt.chat_agent_executor import AgentStatePydantic
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command, Send
from pydantic import BaseModel
from typing_extensions import TypedDict


def norm(value: Any) -> Any:
    if isinstance(value, BaseMessage):
        out = {"type": value.type, "content": value.content}
        for key in ("name", "tool_call_id", "status"):
            if getattr(value, key, None) not in (None, "success"):
                out[key] = getattr(value, key)
        if getattr(value, "tool_calls", None):
            out["tool_calls"] = [[c["name"], c["args"], c["id"]] for c in value.tool_calls]
        return out
    if isinstance(value, dict):
        return {str(k): norm(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [norm(v) for v in value]
    if isinstance(value, BaseModel):
        return norm(value.model_dump())
    if isinstance(value, Command):
        return {"command": norm({"update": value.update, "goto": value.goto, "graph": value.graph})}
    if isinstance(value, Send):
        return {"send": value.node}
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return repr(value)


def call(name: str, id_: str | None = None, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": id_ or f"id_{name}", "type": "tool_call"}


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def fail(x: int) -> int:
    """Always fails."""
    raise ValueError("nope")


@tool
def see_state(q: str, state: Annotated[dict, InjectedState]) -> str:
    """Reads the whole state."""
    return f"{q}: {sorted(state)} n={len(state['messages'])}"


@tool
def see_foo(q: str, foo: Annotated[str, InjectedState("foo")]) -> str:
    """Reads one key."""
    return f"{q}: foo={foo}"


@tool
def remember(q: str, store: Annotated[Any, InjectedStore()]) -> str:
    """Writes to the store."""
    store.put(("mem",), "k", {"q": q})
    return f"stored {q}"


@tool
def set_foo(q: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Sets foo."""
    return Command(
        update={"foo": q, "messages": [ToolMessage(f"foo <- {q}", tool_call_id=tool_call_id)]}
    )


@tool
def bad_command(q: str) -> Command:
    """Returns a Command without its ToolMessage."""
    return Command(update={"foo": q})


@tool
def structured(q: str) -> dict:
    """Returns a dict."""
    return {"q": q, "accent": "é"}


@tool
def with_runtime(q: str, runtime: ToolRuntime) -> str:
    """Reads the runtime."""
    return f"{q}: call={runtime.tool_call_id} state={sorted(runtime.state)}"


@tool(return_direct=True)
def direct(q: str) -> str:
    """Answers directly."""
    return f"direct {q}"


def plain(a: int) -> str:
    """A plain function tool."""
    return f"plain {a}"


class S(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    foo: str


class PS(BaseModel):
    messages: Annotated[list[AnyMessage], add_messages]
    foo: str = "pyd"


ALL = [add, fail, see_state, see_foo, remember, set_foo, bad_command, structured, with_runtime]


def run_tools(calls, *, node=None, schema=S, store=None, stream=False):
    builder = StateGraph(schema)
    builder.add_node("tools", node or ToolNode([*ALL, plain]))
    builder.add_edge(START, "tools")
    graph = builder.compile(store=store)
    inp = {"messages": [HumanMessage("hi"), AIMessage("", tool_calls=calls)], "foo": "bar"}
    try:
        if stream:
            return [sorted(c) for c in graph.stream(inp, stream_mode="updates")]
        out = graph.invoke(inp)
        return {"messages": out["messages"][2:], "foo": out.get("foo")}
    except Exception as e:
        return {"raised": type(e).__name__, "message": str(e)}


def tool_node_cases():
    yield (
        "success",
        run_tools([call("add", a=1, b=2), call("plain", a=4), call("structured", q="z")]),
    )
    yield "bad_args", run_tools([call("add", a="x", b=2)])
    yield "missing_arg", run_tools([call("add", a=1)])
    yield "unknown", run_tools([call("nope", a=1)])
    yield "raises_default", run_tools([call("fail", x=1)])
    calls = [call("fail", x=1), call("add", a="q"), call("zzz")]
    for label, flag in [
        ("true", True),
        ("text", "custom msg"),
        ("tuple", (ValueError,)),
        ("callable", lambda e: f"handled {e!r}"),
        ("false", False),
        ("typed_callable", None),
    ]:
        if flag is None:

            def typed(e: ValueError) -> str:
                return "typed " + str(e)

            flag = typed
        yield (
            f"handle_{label}",
            run_tools(calls, node=ToolNode([add, fail], handle_tool_errors=flag)),
        )
    yield "inject_state", run_tools([call("see_state", q="a"), call("see_foo", q="b")])
    yield "inject_forged", run_tools([call("see_foo", q="x", foo="FORGED")])
    yield "inject_state_pydantic", run_tools([call("see_foo", q="b")], schema=PS)
    yield "store_missing", run_tools([call("remember", q="a")])
    store = InMemoryStore()
    result = run_tools([call("remember", q="a")], store=store)
    yield "store", {"result": result, "stored": store.get(("mem",), "k").value}
    yield "command", run_tools([call("set_foo", q="z"), call("add", a=1, b=2)])
    yield "command_updates", run_tools([call("set_foo", q="z"), call("add", a=1, b=2)], stream=True)
    yield "command_without_message", run_tools([call("bad_command", q="z")])
    yield "tool_runtime", run_tools([call("with_runtime", q="r")])
    yield "messages_key", messages_key_case()
    yield "list_input", list_input_case()
    yield "send_cases", send_cases()
    yield (
        "tools_condition",
        [
            tools_condition({"messages": [AIMessage("", tool_calls=[call("add")])]}),
            tools_condition([AIMessage("done")]),
            tools_condition(PS(messages=[AIMessage("", tool_calls=[call("add")])])),
        ],
    )
    try:
        tools_condition({"messages": []})
    except ValueError as e:
        yield "tools_condition_empty", str(e)
    try:
        ToolNode([add]).invoke({"messages": [AIMessage("", tool_calls=[call("add", a=1, b=2)])]})
    except Exception as e:
        yield "outside_graph", [type(e).__name__, str(e)]
    node = ToolNode([add, plain], name="my_tools", tags=["t"])
    yield "attributes", [node.name, node.get_name(), sorted(node.tools_by_name)]


def messages_key_case():
    class K(TypedDict):
        chat: Annotated[list[AnyMessage], add_messages]

    builder = StateGraph(K)
    builder.add_node("tools", ToolNode([add], messages_key="chat"))
    builder.add_edge(START, "tools")
    out = builder.compile().invoke({"chat": [AIMessage("", tool_calls=[call("add", a=2, b=2)])]})
    return out["chat"]


def list_input_case():
    def agent(state):
        return {"messages": [AIMessage("", tool_calls=[call("add", a=1, b=1)])]}

    def tools(state):
        return {"messages": ToolNode([add]).invoke(state["messages"])}

    class Wrap(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]

    builder = StateGraph(Wrap)
    builder.add_node("agent", agent)
    builder.add_node(
        "tools", lambda s, config: {"messages": ToolNode([add]).invoke(s["messages"], config)}
    )
    builder.add_edge(START, "agent")
    builder.add_edge("agent", "tools")
    try:
        return builder.compile().invoke({"messages": [HumanMessage("x")]})["messages"]
    except Exception as e:
        return {"raised": type(e).__name__, "message": str(e)}


def send_cases():
    results = {}
    for label in ("with_context", "bare_calls"):

        def route(state, label=label):
            calls = state["messages"][-1].tool_calls
            if label == "bare_calls":
                return [Send("tools", [c]) for c in calls]
            return [
                Send("tools", {"__type": "tool_call_with_context", "tool_call": c, "state": state})
                for c in calls
            ]

        builder = StateGraph(S)
        builder.add_node(
            "agent",
            lambda s: {
                "messages": [
                    AIMessage(
                        "",
                        tool_calls=[
                            call("add", a=1, b=2),
                            call("see_state", q="s"),
                            call("set_foo", q="w"),
                        ],
                    )
                ]
            },
        )
        builder.add_node("tools", ToolNode(ALL))
        builder.add_edge(START, "agent")
        builder.add_conditional_edges("agent", route, ["tools"])
        graph = builder.compile()
        inp = {"messages": [HumanMessage("hi")], "foo": "F"}
        try:
            out = graph.invoke(inp)
            results[label] = {"messages": out["messages"][2:], "foo": out["foo"]}
        except Exception as e:
            results[label] = {"raised": type(e).__name__, "message": str(e)}
    return results


class Weather(BaseModel):
    city: str
    temp: int


SEEN: list = []


class Model(BaseChatModel):
    """Calls echo twice on a human turn, answers after tool results."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        SEEN.append(["bind", sorted(getattr(t, "name", str(t)) for t in tools)])
        return self

    def with_structured_output(self, schema, **kwargs):
        def answer(messages):
            msgs = messages.to_messages() if hasattr(messages, "to_messages") else messages
            SEEN.append(["structured", [[m.type, m.content] for m in msgs]])
            return Weather(city="Paris", temp=20)

        return RunnableLambda(answer)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        SEEN.append([[m.type, m.content] for m in messages])
        last = messages[-1]
        if isinstance(last, ToolMessage):
            msg = AIMessage(content=f"done: {last.content}")
        elif "direct" in str(last.content):
            msg = AIMessage("", tool_calls=[call("direct", "d1", q="1")])
        else:
            msg = AIMessage("", tool_calls=[call("echo", "c1", x="1"), call("echo", "c2", x="2")])
        return ChatResult(generations=[ChatGeneration(message=msg)])


@tool
def echo(x: str) -> str:
    """Echo."""
    return "echo " + x


def pre_hook(state):
    return {"llm_input_messages": [SystemMessage("PRE"), *state["messages"][-1:]]}


def post_hook(state):
    return {"messages": []}


def agent_run(agent, text="hi", config=None, limit=None):
    SEEN.clear()
    cfg = dict(config or {})
    if limit:
        cfg["recursion_limit"] = limit
    try:
        updates = [
            {k: sorted(v) if isinstance(v, dict) else v for k, v in c.items()}
            for c in agent.stream({"messages": [("user", text)]}, cfg, stream_mode="updates")
        ]
        SEEN.clear()
        out = agent.invoke({"messages": [("user", text)]}, cfg)
    except Exception as e:
        return {"raised": type(e).__name__, "message": str(e)}
    return {"updates": updates, "result": out, "seen": list(SEEN)}


def agent_cases():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent = create_react_agent(Model(), [echo])
    yield "warning", [[w.category.__name__, str(w.message)] for w in caught]
    yield "graph", [sorted(agent.get_graph().nodes), agent.name]
    yield "default", agent_run(agent)
    yield "v1", agent_run(create_react_agent(Model(), [echo], version="v1"))
    yield "named", agent_run(create_react_agent(Model(), [echo], name="bob", prompt="SYS"))
    yield (
        "prompt_system",
        agent_run(create_react_agent(Model(), [echo], prompt=SystemMessage("SM"))),
    )
    yield (
        "prompt_callable",
        agent_run(
            create_react_agent(
                Model(), [echo], prompt=lambda s: [SystemMessage("CALL"), *s["messages"]]
            )
        ),
    )
    yield (
        "prompt_runnable",
        agent_run(
            create_react_agent(
                Model(),
                [echo],
                prompt=RunnableLambda(lambda s: [SystemMessage("RUN"), *s["messages"]]),
            )
        ),
    )
    yield "pre_hook", agent_run(create_react_agent(Model(), [echo], pre_model_hook=pre_hook))
    yield "post_hook", agent_run(create_react_agent(Model(), [echo], post_model_hook=post_hook))
    yield "response_format", agent_run(create_react_agent(Model(), [echo], response_format=Weather))
    yield (
        "all_hooks",
        agent_run(
            create_react_agent(
                Model(),
                [echo],
                response_format=("Give weather", Weather),
                pre_model_hook=pre_hook,
                post_model_hook=post_hook,
            )
        ),
    )
    yield "no_tools", agent_run(create_react_agent(Model(), []))
    yield "no_tools_structured", agent_run(create_react_agent(Model(), [], response_format=Weather))
    yield "return_direct", agent_run(create_react_agent(Model(), [echo, direct]), text="direct")
    yield "more_steps", agent_run(create_react_agent(Model(), [echo]), limit=2)
    yield (
        "pydantic_state",
        agent_run(create_react_agent(Model(), [echo], state_schema=AgentStatePydantic)),
    )
    yield (
        "tool_node_given",
        agent_run(create_react_agent(Model(), ToolNode([echo], handle_tool_errors=True))),
    )
    for label, kwargs in [
        ("bad_version", {"version": "v3"}),
        ("bad_kwarg", {"foo": 1}),
        ("bad_prompt", {"prompt": 3}),
    ]:
        try:
            create_react_agent(Model(), [echo], **kwargs)
        except Exception as e:
            yield label, [type(e).__name__, str(e)]

    class Bad(TypedDict):
        messages: list

    try:
        create_react_agent(Model(), [echo], state_schema=Bad)
    except Exception as e:
        yield "bad_schema", [type(e).__name__, str(e)]
    broken = {
        "messages": [AIMessage("", tool_calls=[call("echo", "zz", x="1")]), HumanMessage("x")]
    }
    try:
        create_react_agent(Model(), [echo]).invoke(broken)
    except Exception as e:
        yield "chat_history", [type(e).__name__, str(e)]
    saver = InMemorySaver()
    agent = create_react_agent(Model(), [echo], checkpointer=saver, interrupt_before=["tools"])
    cfg = {"configurable": {"thread_id": "1"}}
    first = agent.invoke({"messages": [("user", "hi")]}, cfg)
    state = agent.get_state(cfg)
    resumed = agent.invoke(None, cfg)
    yield (
        "interrupt_before_tools",
        {
            "first": first,
            "next": list(state.next),
            "resumed": resumed,
        },
    )


def async_cases():
    async def run_async():
        agent = create_react_agent(Model(), [echo])
        return await agent.ainvoke({"messages": [("user", "hi")]})

    yield "async", asyncio.run(run_async())

    async def stream_async():
        agent = create_react_agent(Model(), [echo])
        chunks = []
        async for mode, chunk in agent.astream(
            {"messages": [("user", "hi")]}, stream_mode=["updates", "values"]
        ):
            chunks.append([mode, chunk])
        return chunks

    yield "async_stream", asyncio.run(stream_async())


def mermaid_cases():
    # LangGraph 1.2.24 adds the tool names to the tools node label; 1.2.22 (the recorded
    # contract) does not, so that label is left out of the comparison.
    hooks = {
        "plain": {},
        "pre": {"pre_model_hook": pre_hook},
        "post": {"post_model_hook": post_hook},
        "structured": {"response_format": Weather},
        "all": {
            "response_format": Weather,
            "pre_model_hook": pre_hook,
            "post_model_hook": post_hook,
        },
    }
    for label, kwargs in hooks.items():
        for tools in ([echo], [], [echo, direct]):
            agent = create_react_agent(Model(), tools, **kwargs)
            text = re.sub(r"<hr/>.*?</small>", "", agent.get_graph().draw_mermaid())
            yield f"mermaid_{label}_{len(tools)}", text


def internals_cases():
    """LangGraph's private helpers its own suite uses, and injection details."""
    from langchain_core.tools import ToolException
    from langgraph.prebuilt.chat_agent_executor import _get_model, _validate_chat_history
    from langgraph.prebuilt.tool_node import _infer_handled_types

    def by_union(e: ValueError | ToolException) -> str:
        return ""

    def untyped(e):
        return ""

    def not_an_error(e: str) -> str:
        return ""

    found = []
    for handler in (by_union, untyped, not_an_error):
        try:
            found.append([t.__name__ for t in _infer_handled_types(handler)])
        except ValueError as e:
            found.append(type(e).__name__)
    yield "infer_handled_types", found
    model = Model()
    seq = model.bind_tools([echo]) | RunnableLambda(lambda m: m)
    picked = [_get_model(model) is model, _get_model(seq) is model]
    try:
        _get_model(RunnableLambda(lambda m: m))
    except TypeError as e:
        picked.append(type(e).__name__)
    yield "get_model", picked
    unanswered = [AIMessage("", tool_calls=[call("echo", "c1", x="1")])]
    checked = []
    for history in ([], [HumanMessage("hi")], unanswered):
        try:
            checked.append(_validate_chat_history(history))
        except ValueError as e:
            checked.append(type(e).__name__)
    yield "validate_chat_history", checked
    # a tool that needs the store, in a graph without one: raised even when errors are handled
    yield (
        "store_missing_handled",
        run_tools([call("remember", q="a")], node=ToolNode([remember], handle_tool_errors=True)),
    )
    store = InMemoryStore()
    store.put(("prompts", "u1"), "system", {"text": "FROM STORE"})

    def prompt(state, config, *, store):
        user = config["configurable"]["user"]
        text = store.get(("prompts", user), "system").value["text"]
        return [SystemMessage(text), *state["messages"]]

    agent = create_react_agent(Model(), [], prompt=prompt, store=store)
    yield "prompt_store", agent_run(agent, config={"configurable": {"user": "u1"}})
    agent_fn = create_react_agent(Model(), []).nodes["agent"].bound.func
    yield "agent_func", callable(agent_fn)
    from langchain_core.tools import InjectedToolArg
    from langgraph.prebuilt.tool_node import TOOL_CALL_ERROR_TEMPLATE

    yield "error_template", TOOL_CALL_ERROR_TEMPLATE.format(error="boom")

    @tool
    def read_secret(q: str, auth: Annotated[dict, InjectedToolArg()]) -> str:
        """Secret data by role."""
        return "ADMIN_SECRET" if auth.get("role") == "admin" else "PUBLIC"

    forged = call("read_secret", q="x", auth={"role": "admin"})
    # the model cannot supply an injected argument: it is dropped, so the call lacks it
    yield (
        "forged_injected_arg",
        run_tools([forged], node=ToolNode([read_secret], handle_tool_errors=True)),
    )

    @tool
    def context_info(q: str, rt: ToolRuntime[dict]) -> str:
        """The run's context."""
        return repr(rt.context)

    yield (
        "tool_runtime_one_param",
        run_tools([call("context_info", q="x")], node=ToolNode([context_info])),
    )


def main():
    cases = {}
    for group in (tool_node_cases, agent_cases, async_cases, mermaid_cases, internals_cases):
        try:
            for name, value in group():
                cases[name] = norm(value)
        except Exception as e:  # a crash in one group still reports the others
            cases[f"{group.__name__}_crashed"] = [type(e).__name__, str(e)]
    print(json.dumps(cases, sort_keys=True, default=repr))


if __name__ == "__main__":
    main()
