"""The manifest of an output folder: what produced it, without timestamps."""

from __future__ import annotations

import hashlib

from jtau import __version__


def manifest(domain: str, locale: str, rate, source_digests: dict[str, str],
             input_digests: dict[str, str], outputs: dict[str, bytes], arm: str | None = None) -> dict:
    """`arm`: the arm (jtau.arms) of a folder that is not J-tau itself (J-tau's manifest has none)."""
    return {
        "jtau_version": __version__,
        "domain": domain,
        **({"arm": arm} if arm else {}),
        "locale": locale,
        "exchange_rate": {"from": "USD", "to": "JPY", "rate": int(rate)},
        "source": dict(sorted(source_digests.items())),
        "inputs": dict(sorted(input_digests.items())),
        "outputs": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(outputs.items())},
    }
