"""Money invariants: each amount is exactly rate x its source amount, as an integer, and
the arithmetic identities of the source still hold after conversion."""

from __future__ import annotations

import re
from decimal import Decimal

from jtau.swap.money import MoneyError, evaluate, to_decimal
from jtau.util import jsonpath
from jtau.validate.finding import Finding

WHOLE_YEN = re.compile(r"^-?\d{1,3}(?:,\d{3})*円$|^-?\d+$")
YEN_SUFFIX = "円"


def check_amounts(src, out, patterns: list[str], rate: Decimal, file: str,
                  prefix: tuple = (), whole: bool = True) -> tuple[list[Finding], int]:
    """Walk the money paths of source and output side by side (keys may be renamed, order
    is kept).  Returns errors and the number of amounts checked.  `whole=False` (an arm with the
    source's money, rate 1): each amount is the source's, as the source writes it."""
    errors: list[Finding] = []
    checked = 0
    for pattern in patterns:
        pairs = zip(jsonpath.find(src, pattern), jsonpath.find(out, pattern), strict=False)
        for (_, s_parent, s_key), (o_path, o_parent, o_key) in pairs:
            source_value, value = s_parent[s_key], o_parent[o_key]
            if source_value is None and value is None:  # an optional amount not set
                continue
            checked += 1
            if not whole:
                if value != source_value:
                    errors.append(Finding("money", f"{value!r}, the source has {source_value!r}", file,
                                          jsonpath.format_path(prefix + o_path)))
                continue
            if isinstance(value, str) and WHOLE_YEN.match(value):  # banking's "101,480円", "1500000"
                value = int(value.rstrip(YEN_SUFFIX).replace(",", ""))
            if isinstance(value, bool) or not isinstance(value, int):
                errors.append(Finding("money", f"amount {value!r} is not an integer", file,
                                      jsonpath.format_path(prefix + o_path)))
            elif Decimal(value) != to_decimal(source_value) * rate:
                errors.append(Finding("money", f"{value} != {rate} x {source_value}", file,
                                      jsonpath.format_path(prefix + o_path)))
    return errors, checked


def check_expressions(src, out, patterns: list[str], rate: Decimal, file: str,
                      prefix: tuple = ()) -> list[Finding]:
    errors = []
    for pattern in patterns:
        for (_, sp, sk), (path, op, ok) in zip(jsonpath.find(src, pattern), jsonpath.find(out, pattern)):
            try:
                if evaluate(op[ok]) != evaluate(sp[sk]) * rate:
                    errors.append(Finding("money", f"{op[ok]!r} is not {rate} x ({sp[sk]})", file,
                                          jsonpath.format_path(prefix + path)))
            except MoneyError as exc:
                errors.append(Finding("money", str(exc), file, jsonpath.format_path(prefix + path)))
    return errors
