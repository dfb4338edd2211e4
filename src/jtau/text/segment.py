"""Split free text into the segments that are translated, Markdown-aware.

A segment is the content of one line.  What frames it stays outside and is kept verbatim:
indentation, heading marks (`## `), list markers (`- `, `1. `), trailing spaces, blank
lines, fenced code blocks.  Inline markup (`**bold**`, `code`) stays inside the segment and
the answer check makes sure it survives translation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LINE = re.compile(r"^(?P<lead>\s*(?:#{1,6}\s+|(?:[-*+]|\d+[.)])\s+)?)(?P<body>.*?)(?P<trail>\s*)$")
LETTER = re.compile(r"[A-Za-z$]")  # a line of text, or of amounts only ("- $4.00": converted too)


@dataclass(frozen=True)
class Piece:
    text: str
    translate: bool


def segment(text: str) -> list[Piece]:
    pieces: list[Piece] = []

    def literal(value: str) -> None:
        if not value:
            return
        if pieces and not pieces[-1].translate:
            pieces[-1] = Piece(pieces[-1].text + value, False)
        else:
            pieces.append(Piece(value, False))

    fenced = False
    for number, line in enumerate(text.split("\n")):
        if number:
            literal("\n")
        if line.lstrip().startswith("```"):
            fenced = not fenced
            literal(line)
            continue
        match = LINE.match(line)
        assert match is not None  # LINE matches any line
        if fenced or not LETTER.search(match["body"]):
            literal(line)
            continue
        literal(match["lead"])
        pieces.append(Piece(match["body"], True))
        literal(match["trail"])
    return pieces


def join(pieces: list[Piece]) -> str:
    return "".join(p.text for p in pieces)
