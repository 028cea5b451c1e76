"""`langgraph.graph`: `StateGraph`, START, END, `MessagesState`, `add_messages`."""

from superstep_compat._internal._constants import END, START
from superstep_compat.graph.message import MessageGraph, MessagesState, add_messages
from superstep_compat.graph.state import StateGraph

__all__ = ("END", "START", "MessageGraph", "MessagesState", "StateGraph", "add_messages")
