"""Find entity occurrences in free text and replace them by typed placeholders.

What is recognized comes from the maps (names, cities, states, regions, airports, zips,
streets, time-zone labels) and the glossary's enforced terms, from fixed patterns (amounts, also
spelled out, the currency's name in an idiom, dates, user ids, emails, suites), from the rules'
`money_in_words` and `bare_amounts`, and from the domain's frozen tokens (reservation ids, flight
numbers ...).  At each position the patterns are tried first, then the longest map entry; map
entries match whole words only, case-sensitively ("Li" is a name, the "li" of "Liam" is not).
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter

from jtau.glossary import EMPTY, Glossary
from jtau.maps.model import EntityMaps
from jtau.rules import FrozenToken, NotMoney, known_tokens
from jtau.text.template import Entity, Template

MONTHS = ("January February March April May June July August September October "
          "November December").split()
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"

PATTERNS: list[tuple[str, str]] = [
    ("EMAIL", r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),
    # "$14.50", "$100k", a range "$1,500-2,000" or "$3-4k" (one entity: the second figure is money too)
    ("MONEY", rf"\$\s?(?:{_NUMBER})(?:\s?[-–]\s?\$?(?:{_NUMBER}))?(?:[kK](?!\w))?(?:\s+dollars?\b)?"
              rf"|\b(?:{_NUMBER})\s*(?:dollars?|bucks|USD)\b"),
    ("DATE", rf"\b(?:{'|'.join(MONTHS)})\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b"),
]
# An amount spelled out, as a customer says it: "twenty bucks", "three to five dollars", "five to
# six grand", "nearly three thousand dollars", "a couple dollar difference" (one MONEY entity whose
# value is the figure: `$20`, `$3-5`, `$5,000-6,000`)
NUMBER_WORDS = {"couple": 2, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twenty": 20, "thirty": 30, "forty": 40,
                "fifty": 50, "a hundred": 100}
_WORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
SPELLED_MONEY = ("SPELLED_MONEY", rf"\b(?:{_WORD})(?: to (?:{_WORD}))?(?: thousand)? (?:dollars?|bucks|grand)\b")
# the currency's name with no amount ("every dollar counts", "receive every dollar of cash back",
# "a specific dollar amount"): the arm's currency word; not a rate ("for every dollar you spend" is
# per $1), nor "a dollar amount", which Japanese says 金額 (and notation "a yen amount")
# an amount named by a letter, as a template of the text writes it ("$X in cash back plus $Y")
AMOUNT_NAME = ("AMOUNT_NAME", r"\$[A-Z](?![A-Za-z0-9])")
CURRENCY_WORD = ("CURRENCY", r"(?<![Ff]or every )(?<=[Ee]very )dollar\b|(?<=specific )dollar(?= amount)")


def spelled_amount(surface: str) -> str:
    """The figure of an amount spelled out: "five to six grand" -> `$5,000-6,000`."""
    scale = 1000 if surface.endswith("grand") or " thousand " in surface else 1
    words = re.findall(rf"\b(?:{_WORD})\b", surface)
    return "$" + "-".join(f"{NUMBER_WORDS[w] * scale:,}" for w in words)


def dollar_figure(figure: str) -> str:
    """A rules figure in dollars (`3000-4000`, `5000`) as an amount: `$3,000-4,000`."""
    return "$" + "-".join(f"{int(part):,}" for part in str(figure).split("-"))


# Every entity starts a word or at a sign ($14.50, #W1234567, {{slot}}): a position inside a word
# or on a blank is passed over at once instead of trying every alternative (templatize ~1.7x faster)
ENTITY_START = r"(?:(?<!\w)(?=\w)|(?=[^\w\s]))"
# After the domain's frozen tokens, so that `gift_card_123` is a payment id, not a user id.
USER_ID_PATTERN = ("USER_ID", r"\b[a-z]+_[a-z]+_\d+\b")


def trie_regex(words: list[str]) -> str:
    """A regex matching any of `words`, preferring the longest (a compact trie)."""
    trie: dict = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = True

    def build(node: dict) -> str:
        end = "" in node
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if end else body

    return build(trie)


# banking_knowledge's dates in text, as its data writes them (MM/DD/YYYY)
BANK_DATE_PATTERN = ("BANK_DATE", r"\b\d{2}/\d{2}/\d{4}\b")


class Recognizer:
    def __init__(self, maps: EntityMaps, frozen: dict[str, FrozenToken] | None = None,
                 known: dict[str, set[str]] | None = None, glossary: Glossary = EMPTY,
                 whole_entities: bool = False, not_money: NotMoney | None = None,
                 money_in_words: dict[str, str] | None = None, bare_amounts: list[str] | None = None):
        self.known = known or {}
        # the rules' amounts said without a currency word (regex -> dollars)
        self.money_in_words = [(re.compile(words), dollar_figure(figure))
                               for words, figure in (money_in_words or {}).items()]
        self.amounts = [SPELLED_MONEY, CURRENCY_WORD, AMOUNT_NAME]
        if self.money_in_words:
            self.amounts.append(("MONEY_IN_WORDS", "|".join(f"(?:{w.pattern})" for w, _ in self.money_in_words)))
        if bare_amounts:  # the rules' amounts written as a tool takes them ("annual_income=55000")
            self.amounts.insert(0, ("AMOUNT", "|".join(f"(?:{pattern})" for pattern in bare_amounts)))
        self.not_money = (re.compile(not_money.before), re.compile(not_money.after)) if not_money else None
        self.figures = list(not_money.figures.items()) if not_money else []
        self.not_entities = tuple(maps.banking.not_entities) if whole_entities else ()
        if whole_entities:
            self._whole_entities(maps, frozen or {}, glossary)
            return
        self.lexicon = self._lexicon(maps, glossary)
        parts = [f"(?P<{kind}>{pattern})" for kind, pattern in [*PATTERNS, *self.amounts]]
        self.frozen_kinds = []
        for kind, token in (frozen or {}).items():
            parts.append(rf"(?P<{kind}>(?<!\w)(?:{token.pattern})(?!\w))")
            self.frozen_kinds.append(kind)
        parts.append(f"(?P<{USER_ID_PATTERN[0]}>{USER_ID_PATTERN[1]})")
        # street addresses and suites, in the forms the address maps convert
        parts.append(rf"(?P<STREET_ADDRESS>\b\d+ {trie_regex(sorted(maps.addresses.streets))}\b)")
        suite = re.escape(maps.addresses.suite.source).replace(r"\{n\}", r"\d+")
        parts.append(rf"(?P<SUITE>\b{suite}\b)")
        # "LAS (Las Vegas)": the code with its city in parentheses is one airport mention
        self.airport_with_city = {f"{code} ({airport.city})": code for code, airport in maps.places.airports.items()}
        parts.append(rf"(?P<AIRPORT_WITH_CITY>\b(?:{trie_regex(sorted(self.airport_with_city))}))")
        parts.append(rf"(?P<LEXICON>(?<![\w]){trie_regex(sorted(self.lexicon))}(?![\w]))")
        self.regex = re.compile(ENTITY_START + "(?:" + "|".join(parts) + ")")

    @classmethod
    def for_rules(cls, maps: EntityMaps, rules, db, glossary: Glossary = EMPTY) -> "Recognizer":
        """The recognizer of a domain's text: its frozen tokens (known from `db`), lexicon, money
        rules (`not_money`, `money_in_words`, `bare_amounts`)."""
        return cls(maps, rules.tasks.frozen_tokens, known_tokens(rules, db), glossary,
                   whole_entities=rules.whole_entities, not_money=rules.not_money,
                   money_in_words=rules.money_in_words, bare_amounts=rules.bare_amounts)

    def _whole_entities(self, maps: EntityMaps, frozen: dict[str, FrozenToken], glossary: Glossary) -> None:
        """banking_knowledge's text names its entities whole (entity_maps/banking.yaml: a person's
        full name, a one-line address, a merchant) and its products (the catalog's
        banking_products); first, so that an address is one entity, not a street and a city.
        Then the shared patterns and frozen tokens, then the places, time zones and glossary."""
        banking = maps.banking
        whole: dict[str, tuple[str, tuple]] = {}
        for table, kind in ((banking.people, "BANK_PERSON"), (banking.addresses, "BANK_ADDRESS"),
                            (banking.phones, "BANK_PHONE"), (banking.merchants, "MERCHANT"),
                            (banking.text_words, "BANK_WORD"),
                            (maps.catalog.banking_products, "BANK_PRODUCT")):
            for surface in table:
                whole.setdefault(surface, (kind, (surface,)))
        shared = self._lexicon(maps, glossary)
        self.lexicon = {**{s: e for s, e in shared.items() if e[0] in ("CITY", "PREFECTURE", "REGION", "COUNTRY",
                                                                       "TIMEZONE", "TERM")}, **whole}
        parts = [rf"(?P<LEXICON>(?<![\w]){trie_regex(sorted(whole))}(?![\w]))"] if whole else []
        parts += [f"(?P<{kind}>{pattern})" for kind, pattern in [*PATTERNS, *self.amounts, BANK_DATE_PATTERN]]
        self.frozen_kinds = []
        for kind, token in frozen.items():
            parts.append(rf"(?P<{kind}>(?<!\w)(?:{token.pattern})(?!\w))")
            self.frozen_kinds.append(kind)
        rest = sorted(s for s in self.lexicon if s not in whole)
        if rest:
            parts.append(rf"(?P<PLACE>(?<![\w]){trie_regex(rest)}(?![\w]))")
        self.airport_with_city = {}
        self.regex = re.compile(ENTITY_START + "(?:" + "|".join(parts) + ")")

    @staticmethod
    def _lexicon(maps: EntityMaps, glossary: Glossary) -> dict[str, tuple[str, tuple]]:
        entries: dict[str, tuple[str, tuple]] = {}

        def add(surface: str, kind: str, value: tuple) -> None:
            if surface in entries and entries[surface] != (kind, value):
                raise ValueError(f"{surface!r} is both {entries[surface][0]} and {kind} in the maps")
            entries[surface] = (kind, value)

        people, places = maps.people, maps.places
        for given in people.given_names:
            add(given, "GIVEN_NAME", (given,))
            for family in people.family_names:
                add(f"{given} {family}", "PERSON", (given, family))
        for family in people.family_names:
            add(family, "FAMILY_NAME", (family,))
        for city in places.cities:
            add(city, "CITY", (city,))
        for alias, city in places.city_aliases.items():
            add(alias, "CITY", (city,))
        for code, state in places.states.items():
            for name in state.text:
                add(name, "PREFECTURE", (code,))
        for region in places.regions:
            add(region, "REGION", (region,))
        for code in places.airports:
            add(code, "AIRPORT", (code,))
        addresses = maps.addresses
        for zip_code in addresses.zips:
            add(zip_code, "ZIP", (zip_code,))
        for street in addresses.streets:
            add(street, "STREET", (street,))
        for country in addresses.countries:
            add(country, "COUNTRY", (country,))
        for phone in addresses.phones:
            add(phone, "PHONE", (phone,))
        for label in maps.locale.timezones:
            add(label, "TIMEZONE", (label,))
        for surface, term in glossary.surfaces("enforce").items():
            add(surface, "TERM", (term,))
        return entries

    def figures_in(self, file: str) -> frozenset[str]:
        """The "$N" the rules' `not_money.figures` call no money in `file` ("$275" blocked users)."""
        return frozenset(f for pattern, figures in self.figures if fnmatch.fnmatchcase(file, pattern) for f in figures)

    def _no_money(self, match: re.Match, figures: frozenset[str]) -> bool:
        """The rules' `not_money`: "$700" after "credit score", "$2,500" before "vendors", or a
        figure the rules name for the file."""
        assert self.not_money is not None  # templatize asks only when the rules have not_money
        before, after = self.not_money
        text = match.string
        return bool(match.group() in figures or before.search(text, max(0, match.start() - 80), match.start())
                    or after.match(text, match.end(), match.end() + 80))

    def _figure_in_words(self, match: re.Match) -> str:
        """The rules' figure of the amount `match` says in words."""
        for words, figure in self.money_in_words:
            found = words.match(match.string, match.start())
            if found and found.end() == match.end():
                return figure
        raise AssertionError(f"no rule of money_in_words matches {match.group()!r}")

    def templatize(self, text: str, figures: frozenset[str] = frozenset()) -> Template:
        counts: Counter[str] = Counter()
        entities: list[tuple[str, Entity]] = []

        def replace(match: re.Match) -> str:
            kind = match.lastgroup
            assert kind is not None  # every alternative of the regex is a named group
            surface = match.group()
            if kind in ("LEXICON", "PLACE"):
                if self.not_entities and match.string.startswith(self.not_entities, match.start()):
                    return surface  # "Target a specific amount": the verb, not the shop
                kind, value = self.lexicon[surface]
            elif kind == "AIRPORT_WITH_CITY":
                kind, value = "AIRPORT", (self.airport_with_city[surface],)
            elif kind == "MONEY" and self.not_money and self._no_money(match, figures):
                kind, value = "NUMBER", (surface.lstrip("$ "),)
            elif kind == "SPELLED_MONEY":
                kind, value = "MONEY", (spelled_amount(surface),)
            elif kind == "MONEY_IN_WORDS":
                kind, value = "MONEY", (self._figure_in_words(match),)
            elif kind in self.frozen_kinds:
                known = self.known.get(kind)
                if known is not None and surface not in known and not any(c.isdigit() for c in surface):
                    return surface  # an upper-case word, not an id
                value = (surface,)
            else:
                value = (surface,)
            counts[kind] += 1
            name = f"{kind}_{counts[kind]}"
            entities.append((name, Entity(kind, surface, value)))
            return "{" + name + "}"

        escaped = text  # literal braces never form a placeholder: names are UPPER_N only
        return Template(self.regex.sub(replace, escaped), tuple(entities))
