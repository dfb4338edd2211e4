"""The manifest of an output folder: what produced it, without timestamps."""

from __future__ import annotations

import hashlib

from jtau import __version__


def manifest(domain: str, locale: str, rate, source_digests: dict[str, str],
             input_digests: dict[str, str], outputs: dict[str, bytes]) -> dict:
    return {
        "jtau_version": __version__,
        "domain": domain,
        "locale": locale,
        "exchange_rate": {"from": "USD", "to": "JPY", "rate": int(rate)},
        "source": dict(sorted(source_digests.items())),
        "inputs": dict(sorted(input_digests.items())),
        "outputs": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(outputs.items())},
    }
