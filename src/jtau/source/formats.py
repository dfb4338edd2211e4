"""Read and write the data formats of tau2's domains by file suffix: JSON (airline, retail)
and TOML (telecom's db.toml and user_db.toml).  Errors name the file, line and column."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from jtau.errors import InputError


def parse(path: Path, data: bytes) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if path.suffix == ".toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            at = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
            where = f"{path}:{at[1]}:{at[2]}" if at else str(path)
            raise InputError(f"{where}: invalid TOML: {re.sub(r' [(]at .*[)]$', '', str(exc))}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None


def dump(name: str, data: Any) -> bytes:
    """Stable bytes for a generated file: JSON with 4 spaces and a final newline, or TOML in
    the source's key order (tomli-w keeps the order of the dicts)."""
    if name.endswith(".toml"):
        import tomli_w

        return tomli_w.dumps(data).encode("utf-8")
    from jtau.write import dump_json

    return dump_json(data)
