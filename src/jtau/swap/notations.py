"""US notations and J-tau's, in both directions: the localized form the J-tau data holds and the
source's form that tau2's tool code parses (a runtime's locale boundary uses the inverse:
domains/banking_knowledge/boundary.py; retention's canonical arguments read both).  Kinds of the
rules (`date_mdy`, `clock_est`, `money_dollars`, `money_decimal`) that any domain may use:

- dates: `03/15/1992` (MM/DD/YYYY) <-> `1992/03/15` (YYYY/MM/DD, J-tau's one date format); with a
  time, `11/10/2025 14:25:33` <-> `2025/11/10 14:25:33`; an ISO `2025-06-15` (a few records) stays;
- money strings: `$1,014.80` <-> `101,480円`; decimal strings `15000.00` <-> `1500000`;
- clock times: `2025-11-14 03:40:00 EST` <-> `2025-11-14 03:40:00 JST` (the wall clock is kept,
  the label changes: J-tau's airline convention).
"""

from __future__ import annotations

import re
from decimal import Decimal

from jtau.swap.money import MoneyError, convert_amount, format_yen, to_decimal

MDY = re.compile(r"^(\d{2})/(\d{2})/(\d{4})((?: \d{2}:\d{2}:\d{2})?)$")
YMD = re.compile(r"^(\d{4})/(\d{2})/(\d{2})((?: \d{2}:\d{2}:\d{2})?)$")
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CLOCK = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) (EST|JST)$")
YEN = re.compile(r"^(-?)([\d,]+)円$")


class FormatError(ValueError):
    pass


def date_ja(value: str) -> str:
    """MM/DD/YYYY -> YYYY/MM/DD; an ISO date (a few records have one) is kept as it is."""
    if isinstance(value, str) and ISO.match(value):
        return value
    match = MDY.match(value) if isinstance(value, str) else None
    if not match:
        raise FormatError("not a MM/DD/YYYY (or YYYY-MM-DD) date")
    month, day, year, time = match.groups()
    return f"{year}/{month}/{day}{time}"


def date_source(value: str) -> str:
    if isinstance(value, str) and ISO.match(value):
        return value
    match = YMD.match(value) if isinstance(value, str) else None
    if not match:
        raise FormatError("not a YYYY/MM/DD date")
    year, month, day, time = match.groups()
    return f"{month}/{day}/{year}{time}"


def clock_ja(value: str) -> str:
    match = CLOCK.match(value) if isinstance(value, str) else None
    if not match or match[2] != "EST":
        raise FormatError("not a 'YYYY-MM-DD HH:MM:SS EST' time")
    return f"{match[1]} JST"


def clock_source(value: str) -> str:
    match = CLOCK.match(value) if isinstance(value, str) else None
    if not match or match[2] != "JST":
        raise FormatError("not a 'YYYY-MM-DD HH:MM:SS JST' time")
    return f"{match[1]} EST"


def money_text_ja(value, rate: Decimal, suffix: str):
    """`$1,014.80` -> `101,480円` (a negative `-$5.00` -> `-500円`); a number (the tool code writes
    some of these fields as numbers) stays a number, in yen."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return whole(value, rate)
    if not isinstance(value, str) or "$" not in value:
        raise FormatError("not a $ amount")
    negative = value.strip().startswith("-")
    amount = convert_amount(value.replace("-", "", 1) if negative else value, rate)
    return ("-" if negative else "") + format_yen(amount, suffix)


def money_text_source(value: str, rate: Decimal) -> str:
    """`101,480円` -> `$1,014.80`: back in dollars, as the tool code writes and parses them (a
    number, as the code writes some of these fields, in dollars as a number)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return money_source(value, rate)
    match = YEN.match(value) if isinstance(value, str) else None
    if not match:
        raise FormatError("not a yen amount (12,300円)")
    return f"{match[1]}${Decimal(match[2].replace(',', '')) / rate:,.2f}"


def money_decimal_source(value: str, rate: Decimal) -> str:
    """`1500000` -> `15000.00` (a balance as a decimal string, in dollars)."""
    try:
        return f"{Decimal(value) / rate:.2f}"
    except (ArithmeticError, TypeError):
        raise FormatError("not a decimal string") from None


def money_source(value, rate: Decimal):
    """A yen amount as the dollars the tool code computes with (an int stays an int when exact)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError("not an amount")
    dollars = Decimal(repr(value)) / rate
    return int(dollars) if isinstance(value, int) and dollars == dollars.to_integral_value() else float(dollars)


def money_decimal_ja(value: str, rate: Decimal) -> str:
    """`15000.00` -> `1500000` (a balance the db writes as a decimal string; the tool code
    sometimes writes it back as `$15000.00`)."""
    if not isinstance(value, str):
        raise FormatError("not a decimal string")
    return str(whole(value, rate))


def whole(value, rate: Decimal) -> int:
    try:
        return convert_amount(value, rate)
    except MoneyError as exc:
        raise FormatError(str(exc)) from None


def is_amount(value) -> bool:
    try:
        to_decimal(value)
    except MoneyError:
        return False
    return True
