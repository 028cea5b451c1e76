"""Errors answered as the LangGraph server answers them: a status code and a JSON body
``{"detail": "..."}`` that names what is wrong."""

from __future__ import annotations

__all__ = ["ApiError", "conflict", "not_found", "unprocessable"]


class ApiError(Exception):
    """An HTTP error answer: ``status`` and ``detail`` (the body's ``detail``)."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def not_found(detail: str) -> ApiError:
    return ApiError(404, detail)


def conflict(detail: str) -> ApiError:
    return ApiError(409, detail)


def unprocessable(detail: str) -> ApiError:
    return ApiError(422, detail)
