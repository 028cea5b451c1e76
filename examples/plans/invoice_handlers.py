"""Offline handlers for ``examples/plans/invoice.json``: fetch a customer's six open invoices,
score each (in parallel), rank them, charge the most urgent one, review the charge, and,
when the review rejects it, refund it (the step that compensates ``charge``).

    superstep run examples/plans/invoice.json --handlers examples/plans/invoice_handlers.py:handlers
    superstep run examples/plans/invoice.json --compensate --thread inv-1 \\
        --handlers examples/plans/invoice_handlers.py:rejecting_review

Nothing leaves the process: the invoices are a fixed table, and the card processor is a
function that derives its charge and refund ids from the effect's idempotency key, as a real
processor does with an ``Idempotency-Key`` header (so a charge performed twice would be one
charge). ``handlers`` approves a charge up to the review's ``max_charge_minor``;
``rejecting_review`` is the same with an auditor who rejects every charge.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from superstep_core import EffectContext

# invoice number -> (amount in minor units, days overdue)
_INVOICES = {
    1: (182_000, 12),
    2: (96_500, 75),
    3: (240_000, 3),
    4: (31_250, 130),
    5: (158_900, 44),
    6: (12_000, 0),
}


class ReviewRejected(Exception):
    """The review refused the charge: the step fails, and a run with compensation refunds it."""


def _result(request: Mapping[str, Any], step: str) -> Any:
    return request["dependencies"][step]["result"]


def _reference(prefix: str, ctx: EffectContext) -> str:
    return prefix + hashlib.sha256(ctx.idempotency_key.encode()).hexdigest()[:16]


def fetch_invoices(request: Mapping[str, Any], ctx: EffectContext) -> dict[str, Any]:
    customer = request["input"]["customer"]
    invoices = [
        {"invoice": n, "amount_minor": amount, "days_overdue": days}
        for n, (amount, days) in sorted(_INVOICES.items())
    ]
    return {"customer": customer, "invoices": invoices}


def score_invoice(request: Mapping[str, Any], ctx: EffectContext) -> dict[str, Any]:
    """Urgency: the amount in whole units, weighted up by every fortnight overdue."""
    number = request["input"]["invoice"]
    invoice = next(i for i in _result(request, "fetch")["invoices"] if i["invoice"] == number)
    weight = 1 + min(invoice["days_overdue"], 120) // 15
    return {**invoice, "score": invoice["amount_minor"] // 1000 * weight}


def rank_invoices(request: Mapping[str, Any], ctx: EffectContext) -> list[dict[str, Any]]:
    scored = [dep["result"] for dep in request["dependencies"].values()]
    return sorted(scored, key=lambda i: (-i["score"], i["invoice"]))


def charge_card(request: Mapping[str, Any], ctx: EffectContext) -> dict[str, Any]:
    top = _result(request, "rank")[0]
    return {
        "charge_id": _reference("ch_", ctx),
        "invoice": top["invoice"],
        "amount_minor": top["amount_minor"],
        "card": request["input"]["card"],
    }


def review_charge(request: Mapping[str, Any], ctx: EffectContext) -> dict[str, Any]:
    charge = _result(request, "charge")
    limit = request["input"]["max_charge_minor"]
    if charge["amount_minor"] > limit:
        raise ReviewRejected(
            f"charge {charge['charge_id']} of {charge['amount_minor']} is over the limit {limit}"
        )
    return {"approved": charge["charge_id"]}


def reject_charge(request: Mapping[str, Any], ctx: EffectContext) -> dict[str, Any]:
    charge = _result(request, "charge")
    raise ReviewRejected(f"the auditor rejected charge {charge['charge_id']}")


def refund_charge(request: Mapping[str, Any], ctx: EffectContext) -> dict[str, Any]:
    charge = request["compensates"]["result"]
    return {
        "refund_id": _reference("re_", ctx),
        "charge_id": charge["charge_id"],
        "amount_minor": charge["amount_minor"],
    }


handlers = {
    "fetch_invoices": fetch_invoices,
    "score_invoice": score_invoice,
    "rank_invoices": rank_invoices,
    "charge_card": charge_card,
    "review_charge": review_charge,
    "refund_charge": refund_charge,
}

rejecting_review = {**handlers, "review_charge": reject_charge}
