"""``langchain.chat_models`` on Superstep: `init_chat_model` with LangChain's signature,
backed by `superstep_core.llm.init` (every provider key of LangChain's registry, plus
``mock``), so ``create_react_agent("provider:model", ...)`` works without langchain.
"""

from langchain_core.language_models import BaseChatModel

from superstep_compat.chat_models.base import init_chat_model

__all__ = ["BaseChatModel", "init_chat_model"]
