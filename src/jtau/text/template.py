"""Templates: a text with typed placeholders, and the entities behind them."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

PLACEHOLDER = re.compile(r"\{([A-Z]+(?:_[A-Z]+)*_\d+)\}")

# Word boundaries for Latin tokens inside Japanese text: `\b` sees no boundary between 予約
# and HXDUBJ (kanji are word characters), so output checks use ASCII-only boundaries.
LATIN_BEFORE, LATIN_AFTER = r"(?<![A-Za-z0-9_])", r"(?![A-Za-z0-9_])"


@dataclass(frozen=True)
class Entity:
    """One entity occurrence: its kind, the text it had in the source, and its value
    (the map key or parsed value that localizes it)."""

    kind: str
    surface: str
    value: tuple


@dataclass(frozen=True)
class Template:
    text: str
    entities: tuple[tuple[str, Entity], ...] = ()

    def key(self, locale: str, segment_kind: str) -> str:
        """The translation-memory key: what is translated, into what, as what."""
        return hashlib.sha256(f"{locale}\x00{segment_kind}\x00{self.text}".encode()).hexdigest()[:16]
