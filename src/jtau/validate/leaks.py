"""No leak: no source name, US place, street, airport code or dollar amount survives.

Terms come from the source side of the maps; they are matched as whole words and
case-sensitively, so `Li` is found in "Li Wei" and in "はLiです" but not in "Liam", `IN` (Indiana) in a state
field but not in "INSIST", and a romanized id like `mei_suzuki_7075` is no leak of "Mei".
"""

from __future__ import annotations

import re

from jtau.maps.model import EntityMaps
from jtau.text.recognize import trie_regex
from jtau.text.template import LATIN_BEFORE
from jtau.util.jsonpath import format_path
from jtau.validate.finding import Finding

DOLLAR = r"\$\s?\d"


def leak_terms(maps: EntityMaps) -> list[str]:
    people, places, addresses = maps.people, maps.places, maps.addresses
    terms = [*people.given_names, *people.family_names, *places.cities, *places.city_aliases,
             *places.states, *places.regions, *places.airports, *addresses.streets,
             *addresses.countries]
    terms += [name for state in places.states.values() for name in state.text]
    return sorted(set(terms))


def leak_regex(maps: EntityMaps) -> re.Pattern:
    # a subscript digit continues a word too: CO₂ (carbon dioxide) is not CO (Colorado)
    return re.compile(rf"{LATIN_BEFORE}(?:{trie_regex(leak_terms(maps))})(?![A-Za-z0-9_\u2080-\u2089])|{DOLLAR}")


def strings(value, path=()):
    """Every string leaf (and object key) of JSON data with its path."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield path + (key,), key
            yield from strings(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, path + (index,))
    elif isinstance(value, str):
        yield path, value


def distinct_strings(value) -> set[str]:
    """Every distinct string leaf and object key of JSON data (no paths: the fast pass)."""
    out: set[str] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.update(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            out.add(node)
    return out


CAPS_WORD = re.compile(r"[A-Z]{2,}")


def in_caps_phrase(text: str, match: re.Match) -> bool:
    """A two-letter state code inside an all-caps English phrase is a word ("CARD IN JACKET"),
    not Indiana: a neighbouring word in capitals says so."""
    if not CAPS_WORD.fullmatch(match.group()) or len(match.group()) != 2:
        return False
    before = text[:match.start()].split()[-1:] or [""]
    after = text[match.end():].split()[:1] or [""]
    return any(CAPS_WORD.fullmatch(word.strip(".,;:()")) for word in (*before, *after))


def leaks_in(text: str, regex: re.Pattern) -> list[re.Match]:
    return [m for m in regex.finditer(text) if not in_caps_phrase(text, m)]


def find_leaks(data, file: str, regex: re.Pattern, limit: int = 50) -> list[Finding]:
    """Source terms left in `data`, each named by its JSON path.  Each distinct text is
    searched once (telecom repeats its texts 2,285 times); paths are found only for hits."""
    leaking = {text for text in distinct_strings(data) if regex.search(text) and leaks_in(text, regex)}
    errors: list[Finding] = []
    if not leaking:
        return errors
    for path, text in strings(data):
        if text in leaking:
            for match in leaks_in(text, regex):
                errors.append(Finding("leaks", f"source term {match.group()!r} left", file, format_path(path)))
                if len(errors) >= limit:
                    return errors
    return errors
