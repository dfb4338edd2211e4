"""Is a model's answer a usable translation of a template?  Every problem is named; an
answer with any problem is retried and never reaches the translation memory."""

from __future__ import annotations

import re
from collections import Counter

from jtau.text.template import PLACEHOLDER
from jtau.util.limits import MAX_SEGMENT_CHARS, not_text
from jtau.util.listing import joined

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'’.-]*[A-Za-z0-9]|[A-Za-z]")
MARKUP = ("**", "`")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
QUOTED = re.compile(r"「([^」\n]+)」")  # a customer quotes what the phone shows: 「Excellent」, not `Excellent`


_ID_MARK = re.compile(r"[_\d]")


def code_like(word: str) -> bool:
    """Ids, codes and enum literals may stay Latin: `basic_economy`, `HAT271`, `API`."""
    return _ID_MARK.search(word) is not None or (len(word) <= 5 and word.isupper())


QUOTED_MAX = 40


def without_literals(text: str, literals: frozenset[str], source: str = "") -> str:
    """Drop code spans that hold an enum literal (`basic_economy`), or a short string the
    source has verbatim (a status-bar text such as `📶¹ Poor`, a tool call): a translation
    may keep them beside the Japanese, so the agent knows what a tool takes or shows (an enum
    literal may also stand in 「」, as a customer quotes a screen without code marks).  A longer
    copied span must look like code (a call, an identifier), not an English sentence."""
    def keep(span: str) -> bool:
        copied = "{" not in span and span in source  # a tool call or a string a tool shows
        return span in literals or (copied and (len(span) <= QUOTED_MAX or any(c in span for c in "_(=")))

    text = QUOTED.sub(lambda m: "「 」" if m[1] in literals else m[0], text)
    return CODE_SPAN.sub(lambda m: " " if keep(m[1]) else m[0], text)


def problems(source: str, answer, hints: dict[str, str], allow: frozenset[str] = frozenset(),
             literals: frozenset[str] = frozenset(), avoid: tuple[tuple[str, str], ...] = ()) -> list[str]:
    """Every problem of `answer` as a translation of `source`; `avoid`: the glossary's spellings
    never written, with the one to write (お客様 -> お客さま)."""
    if not isinstance(answer, str) or not answer.strip():
        return ["empty answer"]
    if why := not_text(answer):  # NUL, BEL, ... would reach the tasks; a lone surrogate cannot be written
        return [f"{why}: not text"]
    if len(answer) > MAX_SEGMENT_CHARS:
        return [f"{len(answer):,} characters: a segment has at most {MAX_SEGMENT_CHARS:,}"]
    full_answer = answer
    source, answer = without_literals(source, literals, source), without_literals(answer, literals, source)
    found: list[str] = []
    want, got = Counter(PLACEHOLDER.findall(source)), Counter(PLACEHOLDER.findall(answer))
    for name in sorted(want | got):
        if got[name] != want[name]:
            what = "missing" if got[name] < want[name] else ("repeated" if want[name] else "invented")
            found.append(f"placeholder {{{name}}} {what} ({got[name]} instead of {want[name]})")
    bare = PLACEHOLDER.sub(" ", answer)
    if not JAPANESE.search(bare):
        found.append("not Japanese")
    english = [w for w in LATIN_WORD.findall(bare) if w not in allow]
    if english:  # most answers hold no Latin word: the source is scanned only when one does
        allowed = {w for w in LATIN_WORD.findall(PLACEHOLDER.sub(" ", source)) if code_like(w)}
        allowed |= {w for rendering in hints.values() for w in LATIN_WORD.findall(rendering)}  # Tシャツ
        english = [w for w in english if w not in allowed]
    if english:
        found.append("Latin words left: " + joined(sorted(set(english)), 8))
    for mark in MARKUP:
        if source.count(mark) != answer.count(mark):
            found.append(f"markup {mark!r}: {answer.count(mark)} instead of {source.count(mark)}")
    for term, rendering in hints.items():
        if rendering not in full_answer:
            found.append(f"glossary: {term!r} must be rendered {rendering!r}")
    for spelling, written in avoid:
        if spelling in full_answer:
            found.append(f"glossary: write {written!r}, not {spelling!r}")
    return found
