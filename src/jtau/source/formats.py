"""Read and write the data formats of tau2's domains by file suffix: JSON (airline, retail)
and TOML (telecom's db.toml and user_db.toml).  Errors name the file and the line and column
or the JSON path."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from jtau.errors import InputError
from jtau.util.files import dump_json
from jtau.util.jsonpath import format_path
from jtau.util.limits import MAX_DEPTH, MAX_NUMBER_DIGITS, TOO_MANY_DIGITS, Numbers, check_data, decode, deep_line


def parse(path: Path, data: bytes) -> Any:
    """The data of a JSON or TOML file (by suffix), checked as it enters: UTF-8, valid, nested
    at most MAX_DEPTH levels, no number that is none (NaN, infinity), no text that is no text;
    else one line naming the file and the line or the JSON path (jtau/util/limits.py)."""
    text = decode(path, data)
    numbers = Numbers(odd=path.suffix == ".toml")  # (tomllib has no parse_int: TOML files are small)
    try:
        if path.suffix == ".toml":
            value = tomllib.loads(text, parse_float=numbers)
        else:
            value = json.loads(text, parse_constant=numbers, parse_float=numbers, parse_int=numbers.integer)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        where = f"{path}:{at[1]}:{at[2]}" if at else str(path)
        raise InputError(f"{where}: invalid TOML: {re.sub(r' [(]at .*[)]$', '', str(exc))}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        deep = deep_line(text) if path.suffix != ".toml" else 0
        raise InputError(f"{path}{f':{deep}' if deep else ''}: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:  # an integer of more digits than Python converts
        long = TOO_MANY_DIGITS.search(text)
        line = f":{text.count(chr(10), 0, long.start()) + 1}" if long else ""
        raise InputError(f"{path}{line}: a number of more than {MAX_NUMBER_DIGITS:,} digits") from None
    problem = check_data(value, text, numbers)
    if problem:
        data_path, what = problem
        raise InputError(f"{path}: {format_path(data_path)}: {what}")
    return value


def dump(name: str, data: Any) -> bytes:
    """Stable bytes for a generated file: JSON with 4 spaces and a final newline, or TOML in
    the source's key order (tomli-w keeps the order of the dicts)."""
    if name.endswith(".toml"):
        import tomli_w

        return tomli_w.dumps(data).encode("utf-8")

    return dump_json(data)
