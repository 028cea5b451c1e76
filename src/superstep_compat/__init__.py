"""The LangGraph façade: `langgraph`'s public module paths and names, compiled onto
superstep_core."""
