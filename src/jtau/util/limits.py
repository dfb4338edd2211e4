"""The limits of what jtau reads, in one place (docs/LIMITS.md tells users).

Every kind of input is checked where it enters: read whole within a size, decoded, nested no
deeper than a limit, its text free of characters that are no text.  What is past a limit ends
in one line naming the file and the line or JSON path, never in a traceback, a hang or a
wrong output.  The limits are far above what tau2's data and jtau's own files hold.
"""

from __future__ import annotations

import datetime
import math
import re
from pathlib import Path
from typing import Any

from jtau.errors import InputError
from jtau.util.listing import clip

MAX_FILE_BYTES = 64 * 2**20  # any one file jtau reads (tau2's largest, telecom's tasks.json: 14 MB)
MAX_YAML_BYTES = 4 * 2**20  # a YAML file people edit (the largest, entity_maps/banking.yaml: 64 KB)
MAX_DEPTH = 64  # levels of nesting in JSON, TOML, YAML and XML (tau2's data: 8 at most)
MAX_SEGMENT_CHARS = 10_000  # one segment: a line of text, a template, a translation (the longest: 1,365)
MAX_AMOUNT_DIGITS = 15  # digits before the point of an amount: yen of at most 10^17 fit 64 bits
MAX_NUMBER_DIGITS = 4_300  # digits of an integer in JSON (Python's own limit of int <-> str)
MAX_ERROR_LINE = 1_000  # characters of a printed error line (a longer one is cut, saying so)
MAX_NAME_BYTES = 255  # one component of a path (NAME_MAX of Linux and macOS file systems)
MAX_PATH_BYTES = 4_095  # a whole path (PATH_MAX)
MAX_COUNT = 2**32 - 1  # a count of a trace's diagnostics (turns, messages): a side's sums fit 64 bits

# Characters that are no text: C0 controls but tab and newline, DEL, lone surrogates (they cannot
# be written as UTF-8), and the noncharacters U+FFFE and U+FFFF (XML 1.0 cannot hold them).
NOT_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
# In JSON or TOML text, the escapes that may make such a character, and those of them that JSON
# holds raw (a raw C0 control character is invalid JSON and TOML already): the data is searched
# for one only where the text has these (telecom's 14 MB of tasks in 5 ms).
MAYBE_NOT_TEXT = re.compile(r"\\(?:u(?:00[01]|007[fF]|[dD][89a-fA-F]|[fF]{3}[eEfF])|U|[bfr])")
RAW_NOT_TEXT = ("\x7f", "\ufffe", "\uffff")
TOO_MANY_DIGITS = re.compile(r"\d{%d,}" % (MAX_NUMBER_DIGITS + 1))


def not_text(text: str) -> str:
    """What in `text` is no text ("control character U+0007 at character 3"), or "" when it is all text."""
    found = NOT_TEXT.search(text)
    return f"{_character(found[0])} at character {found.start() + 1}" if found else ""


def _character(char: str) -> str:
    code = ord(char)
    what = "lone surrogate" if 0xD800 <= code <= 0xDFFF else "noncharacter" if code >= 0xFFFE else "control character"
    return f"{what} U+{code:04X}"


def check_text(path: Path, text: str) -> str:
    """`text` of a text file (Markdown, Graphviz) if it is all text (a CR of CRLF line ends
    aside); else one line naming the file and the line."""
    found = NOT_TEXT.search(text.replace("\r", " "))
    if found:
        line = text.count("\n", 0, found.start()) + 1
        raise InputError(f"{path}:{line}: {_character(found[0])}: not text")
    return text


def read_input(path: Path, limit: int = MAX_FILE_BYTES, what: str = "file") -> bytes:
    """The bytes of an input file; one line if it is missing, a folder, unreadable or too large."""
    try:
        size = path.stat().st_size
        if path.is_dir():
            raise InputError(f"{path}: is a folder, not a {what}")
        if size > limit:
            raise InputError(f"{path}: {size:,} bytes; jtau reads a {what} of at most {limit:,} bytes")
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: {what} not found") from None
    except OSError as exc:
        raise InputError(f"{printable(str(path))}: cannot read: {exc.strerror or exc}") from None


def decode(path: Path, data: bytes, line_offset: int = 0) -> str:
    """UTF-8 text of a file; the line of the first byte that is not UTF-8 if any."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = line_offset + data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{path}:{line}: not UTF-8 ({exc.reason} at byte {exc.start})") from None


class Numbers:
    """The `parse_float` and `parse_int` (and JSON's `parse_constant`) of a parser: notes a
    number that is none (NaN, an infinity, 1e400) or an integer past 64 bits (jtau writes JSON
    with orjson), so that the data is searched for it only then."""

    def __init__(self, odd: bool = False):
        self.odd = odd  # True: search anyway (a parser without these hooks: TOML's integers)

    def __call__(self, text: str) -> float:
        value = float(text)
        self.odd = self.odd or not math.isfinite(value)
        return value

    def integer(self, text: str) -> int:
        value = int(text)
        self.odd = self.odd or (len(text) > 18 and not INT64[0] <= value <= INT64[1])
        return value


INT64 = (-2**63, 2**64 - 1)  # the integers orjson writes (signed and unsigned 64 bits)


def odd_number(value) -> str:
    """What is wrong with a value of parsed data ("" if nothing): a number JSON cannot hold, or
    no JSON value at all (TOML's dates and times)."""
    if type(value) is float and not math.isfinite(value):
        return "not a finite number (NaN or infinity)"
    if type(value) is int and not INT64[0] <= value <= INT64[1]:
        return "an integer past 64 bits"
    if isinstance(value, (datetime.date, datetime.time)):
        return "a date or time value: tau2's data writes dates as text"
    return ""


def check_data(data, text: str | None = None, numbers: Numbers | None = None,
               limit: int = MAX_DEPTH) -> tuple[tuple, str] | None:
    """The first problem of data parsed from JSON or TOML `text`, as (path, what): nested
    deeper than `limit`, a number that is none (NaN, infinity) or past 64 bits, a text that is
    no text.  `text` and the parser's `numbers` spare the searches they show to be in vain;
    without them every value is looked at.
    Without recursion: telecom's 14 MB of tasks in 60 ms."""
    level, depth = [data] if type(data) is dict or type(data) is list else [], 1
    deep = f"nested deeper than {limit} levels"
    while level:  # containers only, level by level
        level = [value for node in level for value in (node.values() if type(node) is dict else node)
                 if type(value) is dict or type(value) is list]
        depth += 1
        if level and depth > limit:
            return _first(data, lambda value, path: deep if len(path) >= limit and type(value) in (dict, list) else "")
    if (numbers is None or numbers.odd) and (found := _first(data, lambda value, _: odd_number(value))):
        return found
    if text is None or MAYBE_NOT_TEXT.search(text) or any(char in text for char in RAW_NOT_TEXT):
        text_problem = lambda value, _: not_text(value) if type(value) is str else ""  # noqa: E731
        return _first(data, text_problem, text_problem)
    return None


JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[][{}]')


def deep_line(text: str, limit: int = MAX_DEPTH) -> int:
    """The line of JSON `text` where nesting first passes `limit` (0 if it never does): for a
    parser that stopped at its own recursion limit, without saying where."""
    depth = 0
    for match in JSON_TOKEN.finditer(text):
        token = match[0]
        if token in "[{":
            depth += 1
            if depth > limit:
                return text.count("\n", 0, match.start()) + 1
        elif token in "]}":
            depth -= 1
    return 0


def key_no_text(data) -> tuple[tuple, str] | None:
    """The first object key in JSON-like `data` that is not a string (YAML reads `1:` as a
    number, `null:` as None), as (path, what); None when every key is text."""
    return _first(data, lambda value, path: "", lambda key, _: "" if type(key) is str else f"{key!r} is no text")


def _first(data, problem, key_problem=None) -> tuple[tuple, str] | None:
    """The first (path, what) where `problem(value, path)` says what is wrong (a non-empty
    text), depth first; with `key_problem`, object keys are looked at too."""
    stack: list[tuple[tuple, Any]] = [((), data)]
    while stack:
        path, node = stack.pop()
        if what := problem(node, path):
            return path, what
        if type(node) is dict:
            for key, value in reversed(node.items()):
                if key_problem and (what := key_problem(key, path)):
                    return path + (key,), f"key: {what}"
                stack.append((path + (key,), value))
        elif type(node) is list:
            stack.extend((path + (index,), value) for index, value in reversed(list(enumerate(node))))
    return None


def printable(text: str, limit: int = MAX_ERROR_LINE) -> str:
    """`text` for an error line: what is no text escaped (`\\x07`), a line break shown as `\\n`,
    at most `limit` characters (the rest counted)."""
    text = NOT_TEXT.sub(lambda m: m[0].encode("unicode_escape", "backslashreplace").decode("ascii"), text)
    return clip(text.replace("\n", "\\n").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"), limit)


def check_path(value: str) -> str:
    """Why `value` cannot be a path on this system ("" when it can): a component or the whole
    too long, a NUL byte."""
    if "\x00" in value:
        return "a path cannot hold a NUL character"
    data = value.encode("utf-8", "surrogateescape")
    if len(data) > MAX_PATH_BYTES:
        return f"a path of {len(data):,} bytes; at most {MAX_PATH_BYTES:,} are possible"
    for part in data.split(b"/"):
        if len(part) > MAX_NAME_BYTES:
            return f"a name of {len(part):,} bytes in the path; at most {MAX_NAME_BYTES} are possible"
    return ""
