"""Language QA of the free text: Japanese, no placeholder left, Latin letters only in
allowed tokens, glossary hints rendered their one way.

A placeholder left in the output is an error (the text is broken); English left and a hint
term not rendered are warnings (the text is readable but not finished: review material).
"""

from __future__ import annotations

import re

from jtau.glossary import Glossary
from jtau.rules import DomainRules, known_tokens
from jtau.swap.structured import TEXT
from jtau.text.template import LATIN_AFTER, LATIN_BEFORE, PLACEHOLDER
from jtau.translate.check import JAPANESE, LATIN_WORD, code_like, without_literals
from jtau.util import jsonpath
from jtau.util.listing import joined
from jtau.validate.finding import WARNING, Finding
from jtau.validate.leaks import leak_terms

LATIN_LETTER = re.compile(r"[A-Za-z]")
EMAILS = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+")
IDS = re.compile(rf"{EMAILS.pattern}|{LATIN_BEFORE}[a-z]+_[a-z_]*\d*{LATIN_AFTER}")


def text_pairs(src_tasks, out_tasks, rules: DomainRules, action_pairs):
    """(path, source text, output text) of every free-text field of the tasks: their text
    fields and the text arguments of their tool calls (`action_pairs`, as
    integrity.actions of both sides gives them, in task order).  Fields of a kind the rules keep
    in the source language (`source_language`) are not language-checked."""
    calls = iter(action_pairs)
    call = next(calls, None)
    patterns = [p for p, kind in rules.tasks.text.items() if kind not in rules.source_language]
    for index, (src, out) in enumerate(zip(src_tasks, out_tasks)):
        for pattern in patterns:
            for (path, sc, sk), (_, oc, ok) in zip(jsonpath.find(src, pattern), jsonpath.find(out, pattern)):
                if isinstance(sc[sk], str) and sc[sk]:
                    yield (index,) + path, sc[sk], oc[ok]
        while call is not None and call[0][0][0] == index:
            (path, s_action, table), (_, o_action, _) = call
            for pattern in (p for p, kind in table.items() if kind == TEXT):
                for (arg_path, sc, sk), (_, oc, ok) in zip(jsonpath.find(s_action["arguments"], pattern),
                                                           jsonpath.find(o_action["arguments"], pattern)):
                    if isinstance(sc[sk], str) and sc[sk]:
                        yield path + ("arguments",) + arg_path, sc[sk], oc[ok]
            call = next(calls, None)


class FrozenTokens:
    """Removes the domain's frozen tokens (ids, flight numbers) from a text, recognized
    as the recognizer does: by pattern (one alternation, leftmost first: `{{component:x_y}}` is
    a slot, not the identifier x_y), and by the db keys for letter-only ones."""

    def __init__(self, rules: DomainRules, db):
        known = known_tokens(rules, db)
        kinds = list(rules.tasks.frozen_tokens.items())
        self.known = [known.get(kind) for kind, _ in kinds]
        self.regex = re.compile("|".join(f"(?P<T{i}>{LATIN_BEFORE}(?:{t.pattern}){LATIN_AFTER})"
                                         for i, (_, t) in enumerate(kinds))) if kinds else None

    def strip(self, text: str) -> str:
        if self.regex is None:
            return text

        def drop(m: re.Match) -> str:
            assert m.lastgroup is not None  # every alternative of the regex is a named group
            known = self.known[int(m.lastgroup[1:])]
            return " " if known is None or m[0] in known or any(c.isdigit() for c in m[0]) else m[0]

        return self.regex.sub(drop, text)


def english_left(text: str, allow: frozenset[str], literals: frozenset[str], source: str = "") -> list[str]:
    bare = IDS.sub(" ", without_literals(text, literals, source))
    return sorted({w for w in LATIN_WORD.findall(bare) if w not in allow and not code_like(w)})


# A label such as 予約ID or 注文番号 glued to the id it introduces (予約IDXEHM4B): unreadable, and
# an agent copying the id may take the label's letters with it.
GLUED_ID = re.compile(r"(?<=[\u3040-\u30ff\u4e00-\u9fff])ID(?=[A-Za-z0-9#])|番号(?=[A-Za-z#])")


Place = tuple[str, str, int | None]  # a text field's file, JSON path or field, line (Finding's)


def check_field(where: Place, source: str, output: str, glossary: Glossary,
                literals: frozenset[str], frozen: FrozenTokens,
                allow: frozenset[str], hints: bool = True) -> tuple[list[Finding], list[Finding]]:
    """Errors and warnings of one text field at `where`.  `allow`: the Latin words allowed (the
    glossary's and the maps' names); `hints`: check the glossary's renderings too (the knowledge
    base's lines skip it: every one of its segments came from a memory entry checked for its hints)."""
    errors: list[Finding] = []
    warnings: list[Finding] = []
    if not LATIN_LETTER.search(output):  # no placeholder, glued id or English can be left
        return errors, _hint_warnings(where, source, output, glossary) if hints else []
    if placeholder := PLACEHOLDER.search(output):
        errors.append(Finding("language", f"placeholder {placeholder.group()} left in the text", *where))
    if glued := GLUED_ID.search(output):
        glued_text = output[max(0, glued.start() - 6):glued.end() + 8]
        errors.append(Finding("language", f"id glued to its label: {glued_text!r} "
                              "(write 予約ID XEHM4B or 予約ID：XEHM4B)", *where))
    # emails first: the frozen tokens would take `coffeelover_fumi` of coffeelover_fumi@protonmail.com
    words = english_left(frozen.strip(EMAILS.sub(" ", output)), allow, literals, source)
    if words and re.search(r"[A-Za-z]", source):
        state = "untranslated" if not JAPANESE.search(IDS.sub("", output)) or len(words) > 3 else "English left"
        warnings.append(Finding("language", f"{state}: {joined(words, 6)}", *where, severity=WARNING))
    elif not words and hints:
        warnings += _hint_warnings(where, source, output, glossary)
    return errors, warnings


def _hint_warnings(where: Place, source: str, output: str, glossary: Glossary) -> list[Finding]:
    return [Finding("language", f"glossary: {term!r} is not rendered {rendering!r}", *where, severity=WARNING)
            for term, rendering in glossary.hints_in(source).items() if rendering not in output]


def latin_of(names) -> frozenset[str]:
    """The Latin words of entity renderings a map keeps as written (brands: `Netflix`, `Costco`)."""
    return frozenset(word for name in names for word in LATIN_WORD.findall(name))


def source_entity_words(maps) -> frozenset[str]:
    """The Latin words of the source's entities (the maps' source side: names, places, streets,
    banking's people, addresses, phones, merchants and words): a Japanese text of an arm with the
    source's entities (`ja-text`) writes them as the source does (`Mei Brown`, `New York`,
    `1-800-RHO-ACCT`)."""
    banking = maps.banking
    return latin_of([*leak_terms(maps), *banking.people, *banking.addresses, *banking.phones, *banking.merchants,
                     *banking.text_words,
                     *banking.descriptions, *maps.locale.timezones,
                     *(a.city for a in maps.places.airports.values())])


def prose_lines(source: list[str], output: list[str]):
    """(line number, source line, output line) outside ``` code fences (code is kept as written)."""
    fenced = False
    for number, (s, o) in enumerate(zip(source, output), 1):
        if s.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, s, o


def check_language(source, out, rules: DomainRules, glossary: Glossary,
                   action_pairs: list, names: frozenset[str] = frozenset()) -> tuple[list[Finding], list[Finding], int]:
    """Errors, warnings, and the number of fields checked; `names`: Latin words the maps render
    as written (a brand the customer's statement prints), not English left."""
    literals = frozenset(rules.enum_literals)
    frozen = FrozenTokens(rules, source.db)
    errors, warnings, count = [], [], 0
    allow = glossary.allow_latin | names
    fields: list[tuple[Place, str, str, bool]] = [
        ((rules.files.tasks, jsonpath.format_path(p), None), s, o, True)
        for p, s, o in text_pairs(source.tasks, out.tasks, rules, action_pairs)]
    for name, text in source.policies.items():
        fields += [((name, "", n), s, o, True) for n, (s, o) in
                   enumerate(zip(text.split("\n"), out.policies[name].split("\n")), 1) if s.strip()]
    for name, document in source.documents.items():  # the knowledge base: titles, content lines
        localized = out.documents.get(name) or {}
        for key in rules.documents:
            s_text, o_text = document.get(key) or "", localized.get(key) or ""
            fields += [((name, key, n), s, o, False) for n, s, o in
                       prose_lines(s_text.split("\n"), o_text.split("\n")) if s.strip()]
    seen: dict[tuple[str, str], tuple[list[Finding], list[Finding]]] = {}
    for where, s, o, hints in fields:
        count += 1
        if (s, o) not in seen:  # problems are the same wherever a pair recurs; named once
            seen[(s, o)] = check_field(where, s, o, glossary, literals, frozen, allow, hints)
            e, w = seen[(s, o)]
            errors += e
            warnings += w
    return errors, warnings, count
