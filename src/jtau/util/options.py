"""Options whose value is JSON."""

from __future__ import annotations

import json

from jtau.errors import InputError


def llm_args(text: str | None, option: str) -> dict | None:
    """An `--*-llm-args` option's JSON object (None when not given); anything else is one line."""
    if text is None:
        return None
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{option}: not JSON ({exc.msg})") from None
    if not isinstance(parsed, dict):
        raise InputError(f"{option}: a JSON object, such as '{{\"temperature\": 0}}'")
    return parsed
