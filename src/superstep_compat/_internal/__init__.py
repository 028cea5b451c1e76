"""Private helpers of the LangGraph façade; nothing here is part of the public API."""
