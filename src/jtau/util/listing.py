"""Shortened output says how much it leaves out: the first items of a list, the start of a text."""

from __future__ import annotations

MAX_LISTED = 40  # lines of a list jtau prints before it says how many more there are


def first(items, limit: int = MAX_LISTED, where: str = "") -> list[str]:
    """The first `limit` items as text, then a line saying how many are left out (and, with
    `where`, where they all are: "... and 397 more (jtau review airline lists all)")."""
    items = [str(item) for item in items]
    if len(items) <= limit:
        return items
    return items[:limit] + [f"... and {len(items) - limit} more" + (f" ({where})" if where else "")]


def clip(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and how many are left out."""
    return text if len(text) <= limit else f"{text[:limit]}… (+{len(text) - limit} characters)"


def joined(items, limit: int, sep: str = ", ") -> str:
    """The first `limit` items joined, and how many are left out ("a, b, c and 4 more")."""
    items = [str(item) for item in items]
    shown = sep.join(items[:limit])
    return shown if len(items) <= limit else f"{shown} and {len(items) - limit} more"


def counted(count: int, noun: str, plural: str = "") -> str:
    """`count` and the noun in the number it needs: "1 attempt", "4 attempts", "1 entry" (with
    `plural` "entries" where an s will not do), thousands separated ("12,697 segments")."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
