"""One locale per arm: no text an arm shows (tasks, policy, knowledge base, db notes) names a
currency, date format, zone, place or merchant of the other locale, or a country in the other
language's script.

An arm's entities are the source's (dollars, MM/DD/YYYY, EST, US places and merchants) or J-tau's
(yen, YYYY/MM/DD, JST, Japanese places and merchants: jtau.arms); its text is English or Japanese.
`LocaleCheck(maps, arm).findings(text)` reads one text; `check_texts` every text of a domain
folder, each a Finding (validate/finding.py) naming file and JSON path, the words at fault and the text
around them.  What it cannot see:
a fact of the right locale that contradicts the db (a hometown that is not the address's
prefecture, an amount that is not the db's price) reads as well-formed text here.
"""

from __future__ import annotations

import re

from jtau.arms import Arm
from jtau.maps.model import EntityMaps
from jtau.text.recognize import trie_regex
from jtau.util import jsonpath
from jtau.util.jsonpath import format_path
from jtau.validate.finding import Finding

MAX_FINDINGS = 200  # per arm and domain, in the report (the count is exact)


def _words(values, name_only: bool = False) -> re.Pattern | None:
    """A regex of `values` as whole words; `name_only`: not where a lowercase word follows (a verb:
    "Target a specific level")."""
    values = sorted({v for v in values if v and len(v) >= 2}, key=len, reverse=True)
    if not values:
        return None
    after = r"(?![A-Za-z0-9_]| [a-z])" if name_only else r"(?![A-Za-z0-9_])"
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{trie_regex(values)}){after}")


class LocaleCheck:
    """The patterns of the other locale and the other language for one arm (jtau.arms)."""

    def __init__(self, maps: EntityMaps, arm: Arm):
        self.arm = arm
        places, banking = maps.places, maps.banking
        suffix = maps.locale.currency.suffix
        patterns: dict[str, list[str]] = {}
        if arm.localizes_entities:  # J-tau's entities: nothing of the source's locale
            patterns["currency"] = [r"\$\s?\d", r"\$[A-Z](?![A-Za-z0-9])", r"\b(?:[Dd]ollars?|[Bb]ucks|USD)\b",
                                    r"\d\s?(?:grand|k)\b", r"\dドル", r"米ドル"]
            patterns["date"] = [r"(?<![\d/])\d{1,2}/\d{1,2}/\d{4}(?![\d/])", r"MM/DD/YYYY"]
            patterns["zone"] = [r"(?<![A-Za-z])(?:EST|EDT|CST|CDT|PST|PDT|MST|ET)(?![A-Za-z])", r"Eastern Time"]
            states = "|".join(maps.locale.source_states)
            # "from Portland, OR", a state code left after J-tau's place ("from 名古屋, MI"), a US
            # city left before J-tau's prefecture ("based in Boulder, 長野県")
            city_state = rf"(?:\b[A-Z][a-z]+(?: [A-Z][a-z]+)?|(?<=[^\x00-\x7f])), (?:{states})\b"
            patterns["place"] = [city_state] if states else []
            prefectures = sorted({s.prefecture for s in places.states.values()} | set(maps.locale.prefectures))
            if prefectures:
                patterns["place"].append(rf"\b[A-Z][a-z]+(?: [A-Z][a-z]+)?, (?:{'|'.join(prefectures)})")
            # J-tau's city before its prefecture, as the source's "City, ST" ("from 熊本, 熊本県")
            patterns["place"].append(r"(?<![\u4e00-\u9fff])(?P<city>[\u4e00-\u9fff]{1,4}), (?P=city)[都道府県]")
            institutions = _words(maps.locale.institutions) if not arm.japanese_text else None
            if institutions is not None:  # (Japanese text names J-tau's own)
                patterns["institution"] = [institutions.pattern]
            # (state codes only as "City, ST": CO₂ and "IN ORDER" are no states; a merchant that is
            # an English word, "Target", only where it reads as a name)
            self.others = {"place": _words([*places.cities, *(n for s in places.states.values() for n in s.text
                                                             if len(n) > 2)]),
                           "merchant": _words([m for m in banking.merchants if m != banking.merchants[m]],
                                              name_only=not arm.japanese_text)}
        else:  # the source's entities: nothing of J-tau's locale
            patterns["currency"] = [rf"\d{re.escape(suffix)}", r"[¥￥]\s?\d"]  # (yen as a foreign currency is no fault)
            patterns["date"] = [r"(?<![\d/])\d{4}/\d{1,2}/\d{1,2}(?![\d/])", r"YYYY/MM/DD"]
            patterns["zone"] = [r"(?<![A-Za-z])JST(?![A-Za-z])", r"日本時間"]
            patterns["address"] = [r"〒\s?\d{5}(?!\d)"]  # a US zip written as a Japanese postal code
            jtau_places = [s.prefecture for s in places.states.values()] + list(maps.locale.prefectures)
            jtau_places += [name for c in places.cities.values() for name in (c.name, c.address_city) if name]
            self.others = {"place": _words([p for p in jtau_places if p and not p.isascii()]),
                           "merchant": _words([j for m, j in banking.merchants.items() if j != m and not j.isascii()])}
        if arm.japanese_text:  # a country in Japanese text is written in Japanese
            patterns["country"] = [r"(?<![A-Za-z])(?:United States|U\.S\.A?\.?|USA|America|Japan)(?![A-Za-z])"]
        else:
            patterns["country"] = [r"日本|アメリカ|米国"]
        for kind, pattern in self.others.items():
            if pattern is not None:
                patterns.setdefault(kind, []).append(pattern.pattern)
        # one pass a text: every kind a named group of one alternation
        self.regex = re.compile("|".join(f"(?P<{kind}>{'|'.join(f'(?:{p})' for p in ps)})"
                                         for kind, ps in patterns.items() if ps))

    def findings(self, text: str) -> list[tuple[str, re.Match]]:
        """(kind, match) of every word of the other locale or language in `text`."""
        out = []
        for match in self.regex.finditer(text):
            assert match.lastgroup is not None  # every alternative of the regex is a named group
            out.append((match.lastgroup, match))
        return out


def task_texts(tasks: list[dict], rules) -> list[tuple[tuple, str]]:
    """(JSON path from the task's index, text) of every text field of the tasks the arm translates."""
    out = []
    patterns = [p for p, kind in rules.tasks.text.items() if kind not in rules.source_language]
    for index, task in enumerate(tasks):
        for pattern in patterns:
            for path, container, key in jsonpath.find(task, pattern):
                if isinstance(container[key], str):
                    out.append(((index, *path), container[key]))
    return out


def texts(folder_domain, rules) -> list[tuple[str, tuple, str]]:
    """(file, JSON path, text) of every text a domain folder shows the agent or the customer:
    its tasks' text fields, policies, documents and db notes."""
    out = [(rules.files.tasks, path, text) for path, text in task_texts(folder_domain.tasks, rules)]
    for name, text in folder_domain.policies.items():
        out.append((name, (), text))
    for name, document in folder_domain.documents.items():
        for field in rules.documents or ("content",):
            value = document.get(field) if isinstance(document, dict) else None
            if isinstance(value, str):
                out.append((name, (field,), value))
    for pattern in rules.db_text:
        for path, container, key in jsonpath.find(folder_domain.db, pattern):
            if isinstance(container[key], str):
                out.append((rules.files.db_label, path, container[key]))
    return out


def check_texts(folder_domain, rules, maps: EntityMaps, arm: Arm) -> tuple[list[Finding], int]:
    """Every word of the other locale or language in the arm's texts (its kind: currency, date, zone,
    country, place, merchant, address, institution), and how many characters were read."""
    check, found, read = LocaleCheck(maps, arm), [], 0
    seen: dict[str, list[tuple[str, re.Match]]] = {}  # by text: telecom's tasks repeat theirs
    for name, path, text in texts(folder_domain, rules):
        read += len(text)
        if text not in seen:
            seen[text] = check.findings(text)
        for kind, match in seen[text]:
            around = text[max(0, match.start() - 40):match.end() + 40].replace("\n", " ")
            found.append(Finding("locale", f"{kind} of the other locale or language: {match[0]!r} in {around!r}",
                                 name, format_path(path) if path else ""))
    return found, read
