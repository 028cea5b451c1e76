"""`langgraph.cache`: node-result caches for `CachePolicy`."""
