"""Semantic search of the store: the ``store.index`` of ``langgraph.json``
(``{"embed": ..., "dims": 1536, "fields": ["$"]}``) read with LangGraph's own index
machinery (``langgraph.store.base``): ``ensure_embeddings`` turns ``embed`` (a
``"provider:model"`` name for LangChain's ``init_embeddings``, an ``Embeddings``, or a
function from texts to vectors) into embeddings; ``tokenize_path``/``get_text_at_path`` pick
the texts of an item's ``fields`` (JSON paths; ``"$"`` is the whole value).

A put embeds the item's texts (one vector per text, named by its path, ``path.i`` for the
i-th of several); a search with ``query`` scores each candidate item by the cosine
similarity of the query's vector and the item's nearest vector (LangGraph's in-memory store
reads the score so), best first; items without vectors come last with no score.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["StoreIndex", "cosine"]


class StoreIndex:
    """An index configuration, checked. Raises `ValueError` naming the key for a bad one."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        from langgraph.store.base.embed import ensure_embeddings, tokenize_path

        if not isinstance(config, Mapping):
            raise ValueError("store.index: must be an object with embed and dims")
        if config.get("embed") is None:
            raise ValueError("store.index.embed: required (a 'provider:model' or a function)")
        dims = config.get("dims")
        if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
            raise ValueError(f"store.index.dims: {dims!r} must be a positive integer")
        fields = config.get("fields") or ["$"]
        if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
            raise ValueError("store.index.fields: must be a list of JSON paths")
        self.dims = dims
        self.fields = [(f, f if f == "$" else tokenize_path(f)) for f in fields]
        self.embeddings = ensure_embeddings(config["embed"])
        self._tokenize = tokenize_path

    def texts(self, value: Mapping[str, Any], index: Any = None) -> list[tuple[str, str]]:
        """``(path, text)`` of ``value`` to embed: the configured fields, or the ``index``
        a put names (a list of paths); none for ``index=False``."""
        from langgraph.store.base.embed import get_text_at_path

        if index is False:
            return []
        if index is None:
            paths = self.fields
        elif isinstance(index, list) and all(isinstance(p, str) for p in index):
            paths = [(p, p if p == "$" else self._tokenize(p)) for p in index]
        else:
            raise ValueError("index: must be false or a list of JSON paths")
        out: list[tuple[str, str]] = []
        for path, tokens in paths:
            found = get_text_at_path(dict(value), tokens)
            if len(found) == 1:
                out.append((path, found[0]))
            else:
                out += [(f"{path}.{i}", text) for i, text in enumerate(found)]
        return out

    def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = self.embeddings.embed_documents(list(texts)) if texts else []
        for vector in vectors:
            if len(vector) != self.dims:
                raise ValueError(
                    f"store.index: the embeddings gave {len(vector)} dimensions, dims says "
                    f"{self.dims}"
                )
        return [list(map(float, v)) for v in vectors]

    def embed_query(self, query: str) -> list[float]:
        return [float(x) for x in self.embeddings.embed_query(query)]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity (0.0 when either vector is all zeros)."""
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
