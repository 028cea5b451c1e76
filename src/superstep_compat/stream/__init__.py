"""`langgraph.stream`: LangGraph 1.2's v3 streaming.

``graph.stream_events(input, version="v3")`` returns a `GraphRunStream` (``await
graph.astream_events(input, version="v3")`` an `AsyncGraphRunStream`) whose projections
(``run.values``, ``run.messages``, ``run.lifecycle``, ``run.subgraphs``, plus those of the
transformers given to ``compile(transformers=...)`` or the call) are pulled from the run's
one event stream as the caller reads them. Everything here is a projection of the façade's
``(namespace, mode, data)`` run events (see `superstep_compat.stream._graph`).
"""

from superstep_compat.stream._types import ProtocolEvent, StreamTransformer
from superstep_compat.stream.run_stream import (
    AsyncGraphRunStream,
    AsyncSubgraphRunStream,
    GraphRunStream,
    SubgraphRunStream,
)
from superstep_compat.stream.stream_channel import StreamChannel
from superstep_compat.stream.transformers import (
    CheckpointsTransformer,
    CustomTransformer,
    DebugTransformer,
    LifecyclePayload,
    LifecycleTransformer,
    SubgraphStatus,
    SubgraphTransformer,
    TasksTransformer,
    UpdatesTransformer,
)

__all__ = [
    "AsyncGraphRunStream",
    "AsyncSubgraphRunStream",
    "CheckpointsTransformer",
    "CustomTransformer",
    "DebugTransformer",
    "GraphRunStream",
    "LifecyclePayload",
    "LifecycleTransformer",
    "ProtocolEvent",
    "StreamChannel",
    "StreamTransformer",
    "SubgraphRunStream",
    "SubgraphStatus",
    "SubgraphTransformer",
    "TasksTransformer",
    "UpdatesTransformer",
]
