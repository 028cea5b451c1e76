"""`langgraph.checkpoint`: savers that keep a thread's checkpoints."""
