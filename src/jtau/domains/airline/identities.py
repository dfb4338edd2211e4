"""Airline knowledge that is a formula rather than a path: the arithmetic identities its
db holds, checked by `jtau validate` on the source and on the localized db.

Each identity: function(db, rules, rate, file) -> (errors, number of records where it holds).
"""

from __future__ import annotations

from decimal import Decimal

from jtau.rules import DomainRules


def reservation_payments(db, rules: DomainRules, rate: Decimal, file: str) -> tuple[list[str], int]:
    """paid = fares x passengers + insurance x passengers (if insured) + bag fee x non-free bags."""
    constants = {k: v * rate for k, v in rules.tool_constants.items()}
    errors, holds = [], 0
    for rid, res in db["reservations"].items():
        passengers = len(res["passengers"])
        expected = sum(Decimal(f["price"]) for f in res["flights"]) * passengers
        if res.get("insurance") == "yes":
            expected += constants["insurance_per_passenger"] * passengers
        expected += constants["nonfree_bag"] * res.get("nonfree_baggages", 0)
        paid = sum(Decimal(p["amount"]) for p in res["payment_history"])
        if paid == expected:
            holds += 1
        else:
            errors.append(f"{file}: reservations.{rid}: paid {paid} != fares, insurance and bags {expected}")
    return errors, holds


IDENTITIES = {"reservation payments": reservation_payments}
