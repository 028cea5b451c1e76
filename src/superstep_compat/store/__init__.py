"""`langgraph.store`: long-term memory stores."""
