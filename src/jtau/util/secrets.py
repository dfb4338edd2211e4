"""Keys never leave the process: how jtau recognizes them in llm args, and removes them from what
it writes (run records, error messages)."""

from __future__ import annotations

import os
import re

SECRET = re.compile(r"(api[_-]?key|secret|token|password|passwd|authorization|credential)", re.IGNORECASE)
REDACTED = "<redacted>"


def secret_keys(args: dict, where: str = "") -> list[str]:
    """The paths of the keys of llm args that name a secret (nested objects too)."""
    found = []
    for key, value in args.items():
        path = f"{where}.{key}" if where else str(key)
        if SECRET.search(str(key)):
            found.append(path)
        elif isinstance(value, dict):
            found += secret_keys(value, path)
    return found


def redacted(args):
    """llm args with every secret's value replaced (a copy)."""
    if not isinstance(args, dict):
        return args
    return {key: REDACTED if SECRET.search(str(key)) else redacted(value) for key, value in args.items()}


def scrub(text: str) -> str:
    """A text without the value of any secret the environment holds (a provider's error message
    may quote the key it was given)."""
    for name, value in os.environ.items():
        if value and len(value) >= 8 and SECRET.search(name) and value in text:
            text = text.replace(value, REDACTED)
    return text
