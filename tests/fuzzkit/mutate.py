"""Structure-aware mutations of valid files, as Hypothesis draws.

Each mutator takes `draw` (from `st.data()` or a composite strategy) and a valid file (or its
parsed data) and returns the mutated bytes, what the mutation lets us expect (harness.ANY,
REFUSE or SAME) and a short note.  Values JSON or YAML cannot write (NaN, a 5,000-digit
number, 2,000 levels of nesting, an alias bomb) go in as raw tokens: a marker string in the
data, replaced by the token's text after serializing.
"""

from __future__ import annotations

import json
import re

import orjson
from hypothesis import strategies as st

from .harness import ANY, REFUSE, SAME

DEEP = 2_000  # levels of nesting of a deep value (jtau's limit is far below)

# Text a field may hold that jtau must read or refuse cleanly.
ODD_TEXT = [
    "", " ", "\x00", "a\x07b", "\x1b[31mred", "\r", "tab\there", "line\nbreak", "\u202eevil", "\ufeffbom",
    "\ufffe", "\U0001f600", "\u2028", "日本語", "{", "}", "{PERSON_1}", "{{x}}", "]]>", "<b>x</b>", "&amp;",
    "\\", '"', "%s", "null", "NaN", "-1", "x" * 70_000, "あ" * 20_000,
]
CONTROL_TEXT = ["\x00", "a\x07b", "\x1b[31mred", "\r", "x\x0bx", "\x7f"]
SURROGATE_TEXT = ["\ud800", "a\udfffb"]
# Raw JSON tokens: (text, must be refused wherever it stands)
JSON_TOKENS = [
    ("NaN", True), ("Infinity", True), ("-Infinity", True), ("1e400", True),
    ("18446744073709551616", False), ("-9223372036854775809", False), ("9" * 5_000, True), ("1" * 40, False),
    ("-0", False), ("0.1", False), ("1e-400", False), ("[]", False), ("{}", False), ("null", False),
    ("true", False), ('""', False), ("[" * DEEP + "]" * DEEP, True), ('{"a":' * DEEP + "1" + "}" * DEEP, True),
    ('"\\ud800"', True), ('"\\u0000"', True), ('"a\\u0007b"', True),
]


class Raw:
    """Raw tokens to splice into serialized text."""

    def __init__(self):
        self.tokens: list[str] = []

    def __call__(self, token: str) -> str:
        self.tokens.append(token)
        return f"@@RAW{len(self.tokens) - 1}@@"

    def splice(self, text: bytes, quoted: bool = True) -> bytes:
        for index, token in enumerate(self.tokens):
            marker = f"@@RAW{index}@@".encode()
            text = text.replace(b'"' + marker + b'"' if quoted else marker, token.encode("utf-8", "surrogatepass"))
        return text


def json_text(value: str) -> str:
    """A string as a JSON token, any character escaped (lone surrogates too)."""
    return json.dumps(value, ensure_ascii=True)


# --- bytes and lines ------------------------------------------------------------------------

ODD_BYTES = [b"\x00", b"\x07", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\r", b"\t", b"\n", b"\\",
             b'"', b"'", b"{", b"[", b"<", b"&", b":", b"#", b"*", b"&a", b"\xe3\x81"]


def byte_edit(draw, data: bytes) -> tuple[bytes, str]:
    """One edit of the raw bytes: a flip, an insertion of odd bytes, a cut, a truncation."""
    size = len(data)
    at = draw(st.integers(0, max(size - 1, 0)))
    op = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "duplicate"]))
    if op == "flip" and size:
        flipped = data[at] ^ draw(st.sampled_from([1, 0x20, 0x80, 0xff]))
        return data[:at] + bytes([flipped]) + data[at + 1:], f"flip byte {at}"
    if op == "insert":
        odd = draw(st.sampled_from(ODD_BYTES))
        return data[:at] + odd + data[at:], f"insert {odd!r} at byte {at}"
    if op == "delete":
        length = draw(st.integers(1, 64))
        return data[:at] + data[at + length:], f"delete {length} bytes at {at}"
    if op == "duplicate":
        length = draw(st.integers(1, 200))
        return data[:at + length] + data[at:], f"repeat {length} bytes at {at}"
    return data[:at], f"truncate at byte {at}"


def line_edit(draw, data: bytes, odd_lines: list[bytes]) -> tuple[bytes, str]:
    """One edit of the lines: delete, repeat, swap with the next, replace with an odd line."""
    lines = data.split(b"\n")
    at = draw(st.integers(0, max(len(lines) - 1, 0)))
    op = draw(st.sampled_from(["delete", "repeat", "swap", "replace", "insert", "crlf"]))
    if op == "delete":
        del lines[at]
    elif op == "repeat":
        lines.insert(at, lines[at])
    elif op == "swap" and at + 1 < len(lines):
        lines[at], lines[at + 1] = lines[at + 1], lines[at]
    elif op in ("replace", "insert"):
        odd = draw(st.sampled_from(odd_lines))
        if op == "replace":
            lines[at] = odd
        else:
            lines.insert(at, odd)
        return b"\n".join(lines), f"{op} line {at + 1}: {odd[:60]!r}"
    elif op == "crlf":
        return data.replace(b"\n", b"\r\n"), "CRLF line ends"
    return b"\n".join(lines), f"{op} line {at + 1}"


# --- JSON-like data -------------------------------------------------------------------------

def pick_path(draw, data, max_depth: int = 8) -> tuple:
    """A path to a node of `data`: a random walk from the root that may stop at any level."""
    path, node = (), data
    for _ in range(max_depth):
        if isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node, key=str)))
        elif isinstance(node, list) and node:
            key = draw(st.integers(0, len(node) - 1))
        else:
            break
        path, node = path + (key,), node[key]
        if draw(st.integers(0, 3)) == 0:
            break
    return path


def _copy_along(data, path: tuple):
    """`data` with the containers along `path` copied (the rest shared): cheap on 14 MB."""
    root = data.copy() if isinstance(data, (dict, list)) else data
    node = root
    for key in path[:-1]:
        child = node[key]
        child = child.copy() if isinstance(child, (dict, list)) else child
        node[key] = child
        node = child
    return root


def odd_value(draw, raw: Raw, old) -> tuple[object, str, str]:
    """A value to put where `old` was: (value, expectation, note)."""
    choice = draw(st.sampled_from(["token", "text", "control", "surrogate", "type", "number", "long list"]))
    if choice == "token":
        token, refuse = draw(st.sampled_from(JSON_TOKENS))
        return raw(token), REFUSE if refuse else ANY, f"token {token[:20]}"
    if choice == "text":
        text = draw(st.sampled_from(ODD_TEXT))
        return text, ANY, f"text {text[:20]!r}"
    if choice == "control":
        text = draw(st.sampled_from(CONTROL_TEXT))
        return raw(json_text(text)), ANY, f"control {text!r}"
    if choice == "surrogate":
        text = draw(st.sampled_from(SURROGATE_TEXT))
        return raw(json_text(text)), REFUSE, f"lone surrogate {text!r}"
    if choice == "type":
        if isinstance(old, str):
            return draw(st.sampled_from([1, 1.5, True, None, [old], {"value": old}])), ANY, "type of a text"
        if isinstance(old, bool) or old is None:
            return draw(st.sampled_from(["yes", 0, [], {}])), ANY, "type of a flag"
        if isinstance(old, (int, float)):
            return draw(st.sampled_from([str(old), f"${old}", [old], None, True])), ANY, "type of a number"
        return draw(st.sampled_from(["", 0, None, "x"])), ANY, "container replaced by a scalar"
    if choice == "number":
        if isinstance(old, (int, float)) and not isinstance(old, bool):
            value = draw(st.sampled_from([old + 1, -old, old * 1000, old + 0.001, 0, 10 ** 19]))
            return value, ANY, f"number {old} -> {value}"
        return draw(st.integers(-2**70, 2**70)), ANY, "a number"
    return [old] * draw(st.integers(2, 50)), ANY, "value repeated in a list"


def mutate_tree(draw, data, raw: Raw) -> tuple[object, str, str]:
    """One structural mutation of JSON-like data: (new data, expectation, note)."""
    path = pick_path(draw, data)
    if not path:
        value, expect, note = odd_value(draw, raw, data)
        return value, expect, f"$: {note}"
    root = _copy_along(data, path)
    parent = root
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    where = "$" + "".join(f"[{k!r}]" for k in path)
    op = draw(st.sampled_from(["value", "value", "delete", "rename", "add", "duplicate"]))
    if op == "delete":
        del parent[key]
        return root, ANY, f"{where}: deleted"
    if op == "rename" and isinstance(parent, dict):
        name = draw(st.sampled_from(["", " ", "id", key + "_", str(key).upper(), "\x00", "x" * 300]))
        items = [(name if k == key else k, v) for k, v in parent.items()]
        parent.clear()
        parent.update(items)
        return root, ANY, f"{where}: key renamed {name[:20]!r}"
    if op == "add":
        extra, expect, note = odd_value(draw, raw, parent[key])
        if isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "", "__proto__"]))] = extra
        else:
            parent.insert(key, extra)
        return root, expect, f"{where}: added {note}"
    if op == "duplicate" and isinstance(parent, list):
        parent.insert(key, parent[key])
        return root, ANY, f"{where}: duplicated"
    value, expect, note = odd_value(draw, raw, parent[key])
    parent[key] = value
    return root, expect, f"{where}: {note}"


def dump_json(data, raw: Raw, indent: int = 4) -> bytes:
    """JSON as tau2 writes it (indented), raw tokens spliced in."""
    try:
        text = orjson.dumps(data, option=orjson.OPT_INDENT_2) if indent else orjson.dumps(data)
    except TypeError:  # an integer past 64 bits
        text = json.dumps(data, ensure_ascii=False, indent=indent or None).encode("utf-8", "surrogatepass")
    return raw.splice(text)


def json_file(draw, data, original: bytes, indent: int = 4) -> tuple[bytes, str, str]:
    """A JSON file mutated in its structure, its bytes or its layout."""
    way = draw(st.sampled_from(["tree", "tree", "tree", "bytes", "layout"]))
    if way == "bytes":
        mutated, note = byte_edit(draw, original)
        return mutated, ANY, note
    if way == "layout":
        return dump_json(data, Raw(), indent=0) + b"\n", SAME, "the same data on one line"
    raw = Raw()
    mutated, expect, note = mutate_tree(draw, data, raw)
    return dump_json(mutated, raw, indent), expect, note


# --- YAML -----------------------------------------------------------------------------------

ALIAS_BOMB = "\n".join(["bomb:", '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'] + [
    f"  {chr(ord('b') + i)}: &{chr(ord('b') + i)} [{','.join(['*' + chr(ord('a') + i)] * 9)}]" for i in range(8)])
YAML_VALUES = [
    ('"\\0"', True), ('"a\\ab"', True), ('"\\x1b[31m"', True), ('"\\ud800"', True), ("!!binary aGVsbG8=", False),
    (".nan", False), (".inf", False), ("0x" + "f" * 40, False), ("9" * 5_000, False), ("[a, b]", False),
    ("{a: 1}", False), ("~", False), ("yes", False), ("2001-12-14", False), ("*undefined", False),
    ("!!python/object/apply:os.system [echo]", False), ("&x [1]", False), ('""', False), ("'x' 'y'", False),
    ("[" * DEEP + "]" * DEEP, True), ("- a", False), ("|\n  block\n  text", False), ("x" * 70_000, False),
]


def yaml_entries(lines: list[str]) -> list[int]:
    """The lines that are `key: value` (or `- key: value`), not text inside a block scalar (`|`, `>`)."""
    entries, block = [], None  # the indentation a block scalar's text is deeper than
    for index, line in enumerate(lines):
        indent = len(line) - len(line.lstrip(" -"))
        if block is not None and (not line.strip() or indent > block):
            continue
        block = None
        if re.match(r"^\s*(?:- )?[^#\s][^:#]*:\s", line):
            entries.append(index)
            if re.search(r":\s*[|>][-+]?\d?\s*(?:#.*)?$", line):
                block = indent
    return entries


def yaml_file(draw, text: str) -> tuple[bytes, str, str]:
    """A YAML file people edit, mutated by line: a value, a key, an indentation, or a block added."""
    data = text.encode("utf-8")
    way = draw(st.sampled_from(["value", "value", "value", "key", "indent", "bomb", "bytes", "lines"]))
    lines = text.split("\n")
    entries = yaml_entries(lines)
    if way == "bomb":
        # an alias bomb under a key of its own: 9^9 strings once expanded
        anchor = draw(st.sampled_from(["j", "i", "e"]))
        return (text.rstrip("\n") + "\n" + ALIAS_BOMB + f"\n  use: *{anchor}\n").encode(), REFUSE, "alias bomb"
    if way == "bytes":
        mutated, note = byte_edit(draw, data)
        return mutated, ANY, note
    if way == "lines" or not entries:
        mutated, note = line_edit(draw, data, [b"- x", b"  : x", b"x: [", b"\t- tab", b"? [a]\n: b", b"<<: *m",
                                               b"&a x: 1", b"%YAML 1.1", b"---", b"...", b"!!set {a}"])
        return mutated, ANY, note
    at = draw(st.sampled_from(entries))
    indent, key, value = re.match(r"^(\s*)([^:]+):\s?(.*)$", lines[at]).groups()
    if way == "value":
        token, refuse = draw(st.sampled_from(YAML_VALUES))
        lines[at] = f"{indent}{key}: {token}"
        return "\n".join(lines).encode(), REFUSE if refuse else ANY, f"line {at + 1}: value {token[:30]!r}"
    if way == "key":
        new = draw(st.sampled_from(['""', "[k]", "1", "null", key, key + " x", '"\\0"', "? x"]))
        lines[at] = f"{indent}{new}: {value}"
        return "\n".join(lines).encode(), REFUSE if new == '"\\0"' else ANY, f"line {at + 1}: key {new!r}"
    lines[at] = draw(st.sampled_from([" ", "   ", "\t", ""])) + lines[at]
    return "\n".join(lines).encode(), ANY, f"line {at + 1}: indentation"


# --- text (Markdown, DOT, TOML) -------------------------------------------------------------

TEXT_LINES = [b"", b"#", b"# " + b"x" * 300, b"\x00", b"a\x07b", b"\xff\xfe", b"\xed\xa0\x80", b"x" * 200_000,
              "日本語の行".encode(), b"`code", b"**", b"{PERSON_1}", b"$10.00", b"$" + b"9" * 5_000, b"\\"]


def text_file(draw, data: bytes) -> tuple[bytes, str, str]:
    way = draw(st.sampled_from(["lines", "lines", "bytes"]))
    mutated, note = line_edit(draw, data, TEXT_LINES) if way == "lines" else byte_edit(draw, data)
    return mutated, ANY, note


DOT_LABELS = [b'label="', b'label="a\\"', b'label="\x00"', b'label="' + b"x" * 100_000 + b'"', b'label=""',
              b'label="\\n\\n"', b'label="{PERSON_1}"', b"label=x", b'label="a" label="b"']


def dot_file(draw, data: bytes) -> tuple[bytes, str, str]:
    labels = [m.span() for m in re.finditer(rb'label="(?:[^"\\]|\\.)*"', data)]
    if not labels or draw(st.booleans()):
        return text_file(draw, data)
    start, end = draw(st.sampled_from(labels))
    new = draw(st.sampled_from(DOT_LABELS))
    return data[:start] + new + data[end:], ANY, f"label at byte {start}: {new[:30]!r}"


TOML_VALUES = [b"nan", b"inf", b"-inf", b"9223372036854775808", b"9" * 5_000, b"[" * DEEP + b"]" * DEEP,
               b'"\\u0000"', b'"a\\u0007b"', b'"\\ud800"', b"{a = 1}", b"[1, 'a']", b"1979-05-27T07:32:00Z",
               b'"' + b"x" * 70_000 + b'"', b"", b"true", b"0x10"]


def toml_file(draw, data: bytes) -> tuple[bytes, str, str]:
    lines = data.split(b"\n")
    entries = [i for i, line in enumerate(lines) if re.match(rb"^\s*[\w\"'.-]+\s*=\s*\S", line)]
    if not entries or draw(st.integers(0, 3)) == 0:
        mutated, note = line_edit(draw, data, [b"[x", b"[[users]]", b"a = 1\na = 2", b"= 1", b"x = "])
        return mutated, ANY, note
    at = draw(st.sampled_from(entries))
    key = lines[at].split(b"=", 1)[0]
    value = draw(st.sampled_from(TOML_VALUES))
    lines[at] = key + b"= " + value
    refuse = value in (b"nan", b"inf", b"-inf", b"9" * 5_000, b"[" * DEEP + b"]" * DEEP, b'"\\u0000"',
                       b'"a\\u0007b"', b'"\\ud800"')
    return b"\n".join(lines), REFUSE if refuse else ANY, f"line {at + 1}: value {value[:20]!r}"
