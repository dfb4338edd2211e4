"""Money invariants: each amount is exactly rate x its source amount, as an integer, and
the arithmetic identities of the source still hold after conversion."""

from __future__ import annotations

from decimal import Decimal

from jtau import jsonpath
from jtau.rules import DomainRules
from jtau.swap.money import MoneyError, evaluate, to_decimal


def check_amounts(src, out, patterns: list[str], rate: Decimal, file: str,
                  prefix: tuple = ()) -> tuple[list[str], int]:
    """Walk the money paths of source and output side by side (keys may be renamed, order
    is kept).  Returns errors and the number of amounts checked."""
    errors: list[str] = []
    checked = 0
    for pattern in patterns:
        pairs = zip(jsonpath.find(src, pattern), jsonpath.find(out, pattern), strict=False)
        for (_, s_parent, s_key), (o_path, o_parent, o_key) in pairs:
            checked += 1
            source_value, value = s_parent[s_key], o_parent[o_key]
            where = f"{file}: {jsonpath.format_path(prefix + o_path)}"
            if isinstance(value, bool) or not isinstance(value, int):
                errors.append(f"{where}: amount {value!r} is not an integer")
            elif Decimal(value) != to_decimal(source_value) * rate:
                errors.append(f"{where}: {value} != {rate} x {source_value}")
    return errors, checked


def check_expressions(src, out, patterns: list[str], rate: Decimal, file: str,
                      prefix: tuple = ()) -> list[str]:
    errors = []
    for pattern in patterns:
        for (_, sp, sk), (path, op, ok) in zip(jsonpath.find(src, pattern), jsonpath.find(out, pattern)):
            try:
                if evaluate(op[ok]) != evaluate(sp[sk]) * rate:
                    errors.append(f"{file}: {jsonpath.format_path(prefix + path)}: "
                                  f"{op[ok]!r} is not {rate} x ({sp[sk]})")
            except MoneyError as exc:
                errors.append(f"{file}: {jsonpath.format_path(prefix + path)}: {exc}")
    return errors


def airline_reservation_payments(db, rules: DomainRules, rate: Decimal, file: str) -> tuple[list[str], int]:
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


# Arithmetic identities of each domain's db, checked on the output when they hold in the
# source.  name -> function(db, rules, rate, file) -> (errors, number that hold).
IDENTITIES = {
    "airline": {"reservation payments": airline_reservation_payments},
}
