"""Actions as comparable tokens.

Route level: the tool name.  Full level: the tool name with its canonical arguments: keys
sorted, integral floats written as integers, free-text arguments (kind `text` in the domain
rules) blanked, `calculate` expressions replaced by their value.  Arguments of target-language
traces are first mapped back through jtau's entity maps, along the argument kinds of the
domain rules, so that `emi_kaneko_9957`, 34800 (yen) and `KIX` compare equal to
`emma_kim_9957`, 348 (dollars) and `JFK`.  A value no map knows stays as it is (an invented id
is a different action).
"""

from __future__ import annotations

import copy
import re
from decimal import Decimal

import orjson

from jtau import jsonpath
from jtau.maps.model import EntityMaps
from jtau.rules import DomainRules, available, load_rules
from jtau.swap.localizer import EMAIL, USER_ID
from jtau.swap.money import MoneyError, evaluate, to_decimal

ADDRESS1 = re.compile(r"^(\D+?)(?:(\d+)-)?(\d+)-(\d+)$")


def _number(value: Decimal):
    return int(value) if value == value.to_integral_value() else float(value)


class Delocalizer:
    """Japanese value of a kind -> the source value (the inverse of swap.Localizer)."""

    def __init__(self, maps: EntityMaps):
        people, places, addresses = maps.people, maps.places, maps.addresses
        self.rate = maps.locale.currency.rate
        self.given = {n.kanji: k for k, n in people.given_names.items()}
        self.family = {n.kanji: k for k, n in people.family_names.items()}
        self.given_romaji = {n.romaji.lower(): k.lower() for k, n in people.given_names.items()}
        self.family_romaji = {n.romaji.lower(): k.lower() for k, n in people.family_names.items()}
        self.tables = {
            "given_name": self.given, "family_name": self.family,
            "airport": {a.code: k for k, a in places.airports.items()},
            "address_city": {c.address_city: k for k, c in places.cities.items() if c.address_city},
            "state": {s.prefecture: k for k, s in places.states.items()},
            "zip": {v: k for k, v in addresses.zips.items()},
            "country": {v: k for k, v in addresses.countries.items()},
        }
        self.towns = {v: k for k, v in addresses.streets.items()}
        self.suite = re.compile("^" + re.escape(addresses.suite.target).replace(r"\{n\}", r"(\d+)") + "$")
        self.suite_source = addresses.suite.source

    def convert(self, kind: str, value):
        if kind in self.tables:
            return self.tables[kind].get(value, value)
        if kind in ("user_id", "email") and isinstance(value, str):
            match = (USER_ID if kind == "user_id" else EMAIL).match(value)
            if match and match[1] in self.given_romaji and match[2] in self.family_romaji:
                first, last = self.given_romaji[match[1]], self.family_romaji[match[2]]
                return f"{first}_{last}_{match[3]}" if kind == "user_id" else f"{first}.{last}{match[3]}@{match[4]}"
            return value
        if kind == "money":
            try:
                return _number(to_decimal(value) / self.rate)
            except MoneyError:
                return value
        if kind == "address1" and isinstance(value, str):
            match = ADDRESS1.match(value)
            if match and match[1] in self.towns:
                digits = (match[2] or "") + "".join(str(int(d) % 10) for d in match[3:5])
                return f"{int(digits)} {self.towns[match[1]]}"
            return value
        if kind == "address2" and isinstance(value, str):
            match = self.suite.match(value)
            return self.suite_source.format(n=match[1]) if match else value
        return value


def normalize(value):
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


class Canonicalizer:
    """(tool, args) of a benchmark in a language -> route token and full token (ints)."""

    def __init__(self, maps: EntityMaps | None, target_language: str):
        self.delocalizer = Delocalizer(maps) if maps else None
        self.target = target_language
        self.rate = maps.locale.currency.rate if maps else Decimal(1)
        self.rules: dict[str, DomainRules | None] = {}
        self.ids: dict[bytes, int] = {}
        self.names: list[str] = []

    def _rules(self, benchmark: str) -> DomainRules | None:
        if benchmark not in self.rules:
            base = benchmark.removesuffix("_ja")
            self.rules[benchmark] = load_rules(base) if base in available() else None
        return self.rules[benchmark]

    def token(self, key: bytes, name: str) -> int:
        token = self.ids.get(key)
        if token is None:
            token = self.ids[key] = len(self.ids)
            self.names.append(name)
        return token

    def args(self, benchmark: str, language: str, tool: str, args: dict) -> dict:
        rules = self._rules(benchmark)
        table = rules.tools.get(tool, {}) if rules else {}
        if not table:
            return normalize(args)
        args = copy.deepcopy(args)
        mapped_back = language == self.target and self.delocalizer is not None
        scale = self.rate if mapped_back else Decimal(1)
        for pattern, kind in table.items():
            if pattern.endswith(jsonpath.KEYS):
                continue
            for _, container, key in list(jsonpath.find(args, pattern)):
                value = container[key]
                if kind == "text":
                    container[key] = ""
                elif kind == "money_expression":
                    try:
                        container[key] = _number(evaluate(str(value)) / scale)
                    except (MoneyError, ZeroDivisionError):
                        pass
                elif mapped_back:
                    container[key] = self.delocalizer.convert(kind, value)
        return normalize(args)

    def encode(self, benchmark: str, language: str, actions: list[dict]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        route, full = [], []
        for action in actions:
            tool = action["tool"]
            route.append(self.token(b"R" + tool.encode(), tool))
            canonical = orjson.dumps(self.args(benchmark, language, tool, action.get("args") or {}),
                                     option=orjson.OPT_SORT_KEYS)
            full.append(self.token(b"F" + tool.encode() + b"\x00" + canonical, tool))
        return tuple(route), tuple(full)
