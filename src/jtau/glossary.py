"""The glossary (`glossaries/<lang>.yaml`): one Japanese rendering per English term.

`enforce` terms become `{TERM_n}` placeholders in templates and are rendered from the
glossary, so a changed rendering needs no retranslation.  `hint` terms are told to the
model and checked in its answer; the translation memory records the hints an entry was
made with, so changing one retranslates exactly the segments that contain it.
`avoid` holds spellings the Japanese never uses (お客様) with the one it uses (お客さま): every
translation is checked for them like for a hint.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from jtau.errors import InputError
from jtau.util.yamlfile import load_yaml


class Term(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    ja: str
    mode: Literal["enforce", "hint"]
    variants: list[str] = Field(default_factory=list)
    not_in: list[str] = Field(default_factory=list)  # phrases where the word is not the term
    as_written: bool = False  # match only as written, not Capitalized ("brown", not "Lucas Brown")


class GlossaryFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    terms: dict[str, Term]
    allow_latin: list[str] = Field(default_factory=list)
    avoid: dict[str, str] = Field(default_factory=dict)  # a spelling never written -> the one written


@dataclass(frozen=True, eq=False)
class Glossary:
    terms: dict[str, Term]
    allow_latin: frozenset[str]
    digest: str
    shadows: frozenset[str] = frozenset()  # phrases whose words are no hint ("battery life": not "battery")
    avoid: tuple[tuple[str, str], ...] = ()  # (spelling never written, the one written): お客様 -> お客さま

    def surfaces(self, mode: str) -> dict[str, str]:
        """Every written form of the terms of `mode` -> the term."""
        out: dict[str, str] = {}
        for term, entry in self.terms.items():
            if entry.mode != mode:
                continue
            for form in (term, *entry.variants):
                for surface in (form,) if entry.as_written else (form, form[:1].upper() + form[1:], form.title()):
                    out.setdefault(surface, term)
        return out

    def hints_in(self, text: str) -> dict[str, str]:
        """Hint terms occurring in `text` -> their rendering (memoized: telecom repeats the
        same texts in 2,285 tasks)."""
        cached = self._hints_seen.get(text)
        if cached is None:
            cached = self._hints_seen[text] = self._find_hints(text)
        return dict(cached)

    @functools.cached_property
    def _hints_seen(self) -> dict[str, dict[str, str]]:
        return {}

    def _find_hints(self, text: str) -> dict[str, str]:
        """Surfaces are tried longest first; an occurrence inside a longer one found before is
        part of that term, not its own ("grey" in "space grey", "battery" in "battery life").
        Only the surfaces whose first word the text has are tried (most texts hold a few)."""
        found: dict[str, str] = {}
        claimed: list[tuple[int, int]] = []
        by_first, always = self._hints_by_first_word
        tried = set(always)
        for word in by_first.keys() & set(WORD.findall(text)):
            tried.update(by_first[word])
        patterns = self._hint_patterns
        for index in sorted(tried):
            _, term, surface, excluded_phrases = patterns[index]
            if surface not in text:
                continue  # the regex needs the surface as written: most tried surfaces end here
            excluded = [m.span() for phrase in excluded_phrases for m in _phrase_regex(phrase).finditer(text)]
            spans = [m.span() for m in _surface_regex(surface).finditer(text)
                     if not any(start <= m.start() < end for start, end in excluded)]
            if term is not None and any(not any(start <= s and e <= end for start, end in claimed) for s, e in spans):
                found[term] = self.terms[term].ja
            claimed += spans
        return dict(sorted(found.items()))

    @functools.cached_property
    def _hints_by_first_word(self) -> tuple[dict[str, list[int]], list[int]]:
        """The positions in `_hint_patterns` by the surface's first word, and those of the
        surfaces that start with no word (tried in every text)."""
        by_first: dict[str, list[int]] = {}
        always: list[int] = []
        for index, (first, *_rest) in enumerate(self._hint_patterns):
            (always if first is None else by_first.setdefault(first, [])).append(index)
        return by_first, always

    @functools.cached_property
    def _hint_patterns(self) -> list[tuple[str | None, str | None, str, list[str]]]:
        """(first word, term or None for a shadow, surface, excluded phrases), longest surface
        first; the regexes are compiled when a text holds the first word (a glossary with the
        retail catalog has ~900 surfaces, most in no text, more than the re module's cache holds)."""
        surfaces: list[tuple[str, str | None, list[str]]] = [
            (surface, term, self.terms[term].not_in) for surface, term in self.surfaces("hint").items()]
        surfaces += [(surface, None, []) for shadow in sorted(self.shadows)
                     for surface in dict.fromkeys((shadow, shadow[:1].upper() + shadow[1:], shadow.title()))]
        return [(next(iter(WORD.findall(surface)), None), term, surface, not_in)
                for surface, term, not_in in sorted(surfaces, key=lambda item: -len(item[0]))]

    def merged(self, other: Glossary) -> Glossary:
        """This glossary and a domain's own (`glossaries/ja.<domain>.yaml`); a term in both, or a
        rendering two terms would share, is an input error of the domain's file."""
        clash = sorted(set(self.terms) & set(other.terms))
        if clash:
            raise InputError(f"domain glossary repeats terms of the shared glossary: {', '.join(clash)}")
        shared = {entry.ja: term for term, entry in self.terms.items()}
        for term, entry in other.terms.items():
            if entry.ja in shared:
                raise InputError(f"domain glossary: {term!r} has the rendering {entry.ja!r} of {shared[entry.ja]!r}")
        digest = hashlib.sha256(f"{self.digest}\x00{other.digest}".encode()).hexdigest()
        avoid = dict(self.avoid)
        for spelling, written in other.avoid:
            if avoid.get(spelling, written) != written:
                raise InputError(f"domain glossary: avoid {spelling!r} says {written!r}, "
                                 f"the shared one {avoid[spelling]!r}")
            avoid[spelling] = written
        return Glossary({**self.terms, **other.terms}, self.allow_latin | other.allow_latin, digest, self.shadows,
                        tuple(sorted(avoid.items())))

    def with_hints(self, hints: dict[str, str], origin: str, as_written: frozenset[str] = frozenset(),
                   shadows: frozenset[str] = frozenset()) -> Glossary:
        """This glossary plus `hints` (English -> rendering) as hint terms, for a domain whose
        text must name map entries the map's way (the retail catalog).  A glossary term of the
        same name wins; plurals in -s match too; terms in `as_written` match in lower case only;
        inside a phrase of `shadows` no hint is found (the catalog's option names)."""
        extra = {term: Term(ja=ja, mode="hint", variants=[f"{term}s"] if not term.endswith("s") else [],
                            as_written=term in as_written)
                 for term, ja in hints.items() if term not in self.terms}
        digest = hashlib.sha256(f"{self.digest}\x00{origin}".encode()).hexdigest()
        return Glossary({**self.terms, **extra}, self.allow_latin, digest, self.shadows | shadows, self.avoid)


WORD = re.compile(r"\w+")  # the first word of a surface must be a word of the text


@functools.lru_cache(maxsize=None)
def _surface_regex(surface: str) -> re.Pattern:
    return re.compile(rf"(?<![\w-]){re.escape(surface)}(?![\w-])")


@functools.lru_cache(maxsize=None)
def _phrase_regex(phrase: str) -> re.Pattern:
    return re.compile(re.escape(phrase), re.IGNORECASE)


EMPTY = Glossary({}, frozenset(), "")


def load_glossary(path: Path) -> Glossary:
    if not path.exists():
        raise InputError(f"{path}: glossary not found")
    doc = load_yaml(path)
    parsed = doc.parse(GlossaryFile)
    renderings: dict[str, str] = {}
    for term, entry in parsed.terms.items():
        if entry.ja in renderings:
            raise InputError(f"{doc.where(('terms', term))}: {term!r} and {renderings[entry.ja]!r} "
                             f"share the rendering {entry.ja!r}")
        renderings[entry.ja] = term
        # a `not_in` phrase holds the term, or it never applies (a typo, a plural the phrase lacks)
        forms = [term, *entry.variants]
        for phrase in entry.not_in:
            if not any(re.search(rf"(?<![\w-]){re.escape(form)}(?![\w-])", phrase, re.IGNORECASE) for form in forms):
                raise InputError(f"{doc.where(('terms', term))}: not_in {phrase!r} holds no form of {term!r}")
    for spelling, written in parsed.avoid.items():
        if spelling in written or not spelling or any(spelling in entry.ja for entry in parsed.terms.values()):
            raise InputError(f"{doc.where(('avoid', spelling))}: {spelling!r} cannot be avoided "
                             f"in favour of {written!r}")
    return Glossary(parsed.terms, frozenset(parsed.allow_latin), hashlib.sha256(path.read_bytes()).hexdigest(),
                    avoid=tuple(sorted(parsed.avoid.items())))
