"""Tables of tau2's English messages and their Japanese (`*.ja.yaml` beside this module).

A table is `prefix`, `messages` (English with `{field}` where tau2 writes a value -> Japanese
with each field once) and, optionally, `field_values` (the English a field may hold, such as a
title-cased enum, -> Japanese).  The most literal message wins ("Customer with ID {id} not
found" before "{item} not found").  A field that follows `$` in the English is an amount, which
the caller renders (banking_knowledge: as yen); other fields keep their text, through
`field_values` where it names them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml

FIELD = re.compile(r"\{(\w+)\}")
MAX_PIECE_LINES = 12  # the longest message piece the tool code assembles, in lines
MAX_DEPTH = 3         # fields that hold messages that hold messages ...
LEAD = 3              # the characters of a text that pick the messages tried on it (MessageTable.candidates)


@dataclass(frozen=True)
class Message:
    pattern: re.Pattern
    japanese: str
    amounts: frozenset[str]  # fields written after "$"
    piece: re.Pattern        # the same as one piece of an assembled text (MessageTable.translate)
    lead: str                # the English before its first field: a text it matches starts with it
    piece_lead: str          # the same for `piece`


class MessageTable:
    def __init__(self, data: dict):
        self.prefix: str = data.get("prefix", "")
        self.field_values: dict[str, str] = data.get("field_values") or {}
        dollars: dict[str, list[str]] = data.get("dollar_fields") or {}
        messages = sorted((data.get("messages") or {}).items(), key=lambda kv: -len(FIELD.sub("", kv[0])))
        self.messages = [self._compile(english, japanese, dollars.get(english, ())) for english, japanese in messages]
        self._candidates: dict[tuple[bool, str], list[Message]] = {}

    @staticmethod
    def _compile(english: str, japanese: str, dollars=()) -> Message:
        parts = FIELD.split(english)

        def capture(index: int) -> str:
            return capture_in(parts, index)

        pattern = "".join(capture(index) if index % 2 else re.escape(part) for index, part in enumerate(parts))
        amounts = frozenset(parts[i] for i in range(1, len(parts), 2)
                            if parts[i - 1].endswith("$") or parts[i] in dollars)
        # as a piece: its own lines, without the line breaks the code joins pieces with (a piece
        # "\n  - Payment Date: ..." or "...Arguments: {args}\n")
        inner = FIELD.split(english.strip("\n"))
        piece = "".join(capture_in(inner, index) if index % 2 else re.escape(part) for index, part in enumerate(inner))
        return Message(re.compile(pattern, re.DOTALL), japanese, amounts, re.compile(piece, re.DOTALL),
                       parts[0], inner[0])

    def candidates(self, text: str, piece: bool) -> list[Message]:
        """The messages that may match `text`, in order: those whose English starts as the text
        does (a verify run tries tens of thousands of texts on hundreds of messages)."""
        key = (piece, text[:LEAD])
        found = self._candidates.get(key)
        if found is None:
            found = self._candidates[key] = [
                message for message in self.messages
                if key[1].startswith((message.piece_lead if piece else message.lead)[:LEAD])]
        return found

    def translate(self, text: str, amount: Callable[[str], str] = str,
                  field: Callable[[str], str] | None = None, piece: bool = False) -> str | None:
        """The Japanese of `text` by the first message it matches whole, or None; `amount`
        renders a field written after `$`, `field` any other (default: `field_values`).
        `piece`: `text` is a run of lines of a text the code assembled from pieces, matched by a
        message without the line breaks around it."""
        field = field or (lambda value: self.field_values.get(value, value))
        for message in self.candidates(text, piece):
            if match := (message.piece if piece else message.pattern).fullmatch(text):
                japanese = message.japanese.strip("\n") if piece else message.japanese

                def fill(m: re.Match, amounts: frozenset[str] = message.amounts) -> str:
                    return amount(match[m[1]]) if m[1] in amounts else field(match[m[1]])

                return FIELD.sub(fill, japanese)
        return None


def capture_in(parts: list[str], index: int) -> str:
    """The group of field `parts[index]`: in a message of several lines it runs over lines where a
    line break or the end follows it (a nested result, a list of records); elsewhere, and in a
    message of one line ("Preferred Network Mode set to: {mode}"), it is a value on its line."""
    after = parts[index + 1]
    several = any("\n" in part for part in parts[::2])
    return f"(?P<{parts[index]}>.+?)" if several and (after == "" or after.startswith("\n")) \
        else f"(?P<{parts[index]}>[^\n]+?)"


def render(table: MessageTable, text: str, amount: Callable[[str], str] = str,
           field: Callable[[str], str | None] | None = None, depth: int = 0) -> str:
    """`text` in Japanese by `table`: whole, else piece by piece (a text the code assembled:
    "\n".join(parts)), each piece the shortest run of lines that is one message or a field
    value, so that a field at a message's end or before a line break holds lines but not the
    pieces after it ("Previous Limit: $600").  A field reads through `field` first (None: not
    known there), then `field_values`, then as a list of indicators (" | ") or a text of its
    own.  What no message covers stays as it is."""
    def read(value: str) -> str:
        known = field(value) if field is not None else None
        if known is None:
            known = table.field_values.get(value)
        if known is not None or depth >= MAX_DEPTH:
            return value if known is None else known
        if " | " in value:
            return " | ".join(read(part) for part in value.split(" | "))
        return render(table, value, amount, field, depth + 1)

    whole = table.translate(text, amount=amount, field=read)
    if whole is None:
        whole = table.field_values.get(text)  # a text that is one known value (a status line)
    if whole is not None or "\n" not in text:
        return text if whole is None else whole
    lines, out, start = text.split("\n"), [], 0
    while start < len(lines):
        for end in range(start + 1, min(len(lines), start + MAX_PIECE_LINES) + 1):
            run = "\n".join(lines[start:end])
            piece = table.translate(run, amount=amount, field=read, piece=True) or table.field_values.get(run)
            if piece is not None:
                out.append(piece)
                start = end
                break
        else:
            out.append(lines[start])
            start += 1
    return "\n".join(out)


@functools.cache
def table(name: str | Path) -> MessageTable:
    """The table `runtime/<name>.ja.yaml`, or a domain's own file (a path)."""
    return MessageTable(_data(name))


def table_in(name: str | Path, japanese: Callable[[str], str | None]) -> MessageTable:
    """The table `table(name)` with each Japanese text passed through `japanese` (an
    arm's notation: text/notation.py)."""
    data = _data(name)
    for part in ("messages", "field_values"):
        data[part] = {english: japanese(text) if isinstance(text, str) else text
                      for english, text in (data.get(part) or {}).items()}
    return MessageTable(data)


def _data(name: str | Path) -> dict:
    path = name if isinstance(name, Path) else resources.files(__package__) / f"{name}.ja.yaml"
    return yaml.safe_load(path.read_text(encoding="utf-8"))
