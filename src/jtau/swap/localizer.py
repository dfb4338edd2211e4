"""Convert one source value of a kind into its Japanese value, through the entity maps.

The kinds are the vocabulary of the domain rules (`src/jtau/rules/*.yaml`).  A value no map
covers raises `Unmapped`; the caller reports it with its JSON path.  Everything here is a
pure function of the maps: the same value always gives the same result.

A localizer localizes for one arm (jtau.arms, default `ja`: everything): a kind the arm does not
localize is kept as it is (`localizes`): the catalog's words follow the arm's text language
(`LANGUAGE_KINDS`), every other kind its entity locale.  A format (rules/formats.py) is written in
the frame of the text language around fields converted by their own kinds, unless the maps also
hold its values whole (banking's descriptions and merchants, and the formats inside them): such a
value is an entity like a name, written in J-tau's form or kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from jtau.arms import ARMS, JTAU_ARM, LANGUAGE_KINDS, Arm
from jtau.maps.model import EntityMaps
from jtau.rules.formats import convert as convert_format
from jtau.swap import notations
from jtau.swap.money import MoneyError, convert_amount, convert_expression, format_yen, yen_in

USER_ID = re.compile(r"^([a-z]+)_([a-z]+)_(\d+)$")
EMAIL = re.compile(r"^([a-z]+)(\.?)([a-z]*)(\d*)@(.+)$")
ADDRESS1 = re.compile(r"^(\d+) (.+)$")


# Kinds the tools compare or look up by: two source values must never become one.  (Names are
# compared case-insensitively by find_user_id_by_name_zip, but the maps already keep them one
# to one.)
KEYS = frozenset({"user_id", "email", "zip", "address1", "product_name", "phone", "full_name", "plan_name",
                  "bank_person", "bank_email", "bank_phone", "bank_address", "bank_product"})
FULL_NAME = re.compile(r"^(\S+) (\S+)$")


class Unmapped(Exception):
    """No map entry covers this value (or it has not the form its kind needs)."""

    def __init__(self, kind: str, value, reason: str = "not in the maps"):
        super().__init__(f"{kind} {value!r}: {reason}")
        self.kind, self.value, self.reason = kind, value, reason


class Localizer:
    def __init__(self, maps: EntityMaps, arm: Arm | None = None):
        self.maps = maps
        self.arm = arm or ARMS[JTAU_ARM]
        self.text_frames: set[str] = set()  # format kinds whose frame follows the text language
        self.seen: dict[str, dict[str, set[str]]] = {}  # kind -> target -> source values (KEYS)
        people, places = maps.people, maps.places
        self.given_lower = {k.lower(): v for k, v in people.given_names.items()}
        self.family_lower = {k.lower(): v for k, v in people.family_names.items()}
        self.rate = maps.locale.currency.rate
        suite_source = re.escape(maps.addresses.suite.source).replace(r"\{n\}", r"(?P<n>\d+)")
        self.suite_pattern = re.compile(f"^{suite_source}$")
        self.converters: dict[str, Callable] = {
            "given_name": lambda v: self._lookup(people.given_names, "given_name", v).kanji,
            "family_name": lambda v: self._lookup(people.family_names, "family_name", v).kanji,
            "user_id": self.user_id,
            "email": self.email,
            "airport": lambda v: self._lookup(places.airports, "airport", v).code,
            "address_city": self.address_city,
            "state": lambda v: self._lookup(places.states, "state", v).prefecture,
            "zip": lambda v: self._lookup(maps.addresses.zips, "zip", v),
            "country": lambda v: self._lookup(maps.addresses.countries, "country", v),
            "address1": self.address1,
            "address2": self.address2,
            "product_name": lambda v: self._lookup(maps.catalog.products, "product_name", v),
            "option_name": lambda v: self._lookup(maps.catalog.option_names, "option_name", v),
            "option_value": lambda v: self._lookup(maps.catalog.option_values, "option_value", v),
            "option_wording": self.option_wording,
            "phone": lambda v: self._lookup(maps.addresses.phones, "phone", v),
            "full_name": self.full_name,
            "plan_name": lambda v: self._lookup(maps.catalog.plans, "plan_name", v),
            "device_model": lambda v: self._lookup(maps.catalog.devices, "device_model", v),
            "money": self.money,
            "money_text": lambda v: format_yen(self.money(v), maps.locale.currency.suffix),
            "money_expression": self.money_expression,
            # whole values through entity_maps/banking.yaml (banking_knowledge's)
            "bank_person": lambda v: self._lookup(maps.banking.people, "bank_person", v).name,
            "cardholder": self.cardholder,
            "bank_address": lambda v: self._lookup(maps.banking.addresses, "bank_address", v),
            "bank_phone": lambda v: self._lookup(maps.banking.phones, "bank_phone", v),
            "bank_email": lambda v: self._lookup(maps.banking.emails, "bank_email", v),
            "merchant": lambda v: self._lookup(maps.banking.merchants, "merchant", v),
            "bank_description": lambda v: self._lookup(maps.banking.descriptions, "bank_description", v),
            "bank_product": lambda v: self._lookup(maps.catalog.banking_products, "bank_product", v),
            "date_mdy": self._format("date_mdy", notations.date_ja),
            "clock_est": self._format("clock_est", notations.clock_ja),
            "money_dollars": self._format(
                "money_dollars", lambda v: notations.money_text_ja(v, self.rate, maps.locale.currency.suffix)),
            "money_decimal": self._format("money_decimal", lambda v: notations.money_decimal_ja(v, self.rate)),
        }

    @classmethod
    def for_rules(cls, maps: EntityMaps, rules, arm: Arm | None = None) -> "Localizer":
        """The localizer of a domain for an arm (default `ja`): the maps, its formats and its sentinels."""
        return cls(maps, arm).use_formats(rules.formats).keep(rules.sentinels)

    @property
    def kinds(self) -> list[str]:
        return sorted(self.converters)

    def localizes(self, kind: str) -> bool:
        """Whether this localizer's arm converts values of `kind` (else they stay the source's)."""
        if kind in LANGUAGE_KINDS:
            return self.arm.japanese_text
        if kind in self.text_frames:
            return self.arm.japanese_text or self.arm.localizes_entities
        return self.arm.localizes_entities

    def use_formats(self, formats: dict[str, list]) -> "Localizer":
        """Add the domain's formatted-text kinds (rules `formats`, see rules/formats.py)."""
        whole = {kind for kind in formats if kind in self.converters}  # values the maps also hold whole
        pending = list(whole)
        while pending:  # the formats inside them are written like them
            for fmt in formats.get(pending.pop(), []):
                for inner in fmt.kinds.values():
                    if inner in formats and inner not in whole:
                        whole.add(inner)
                        pending.append(inner)
        self.text_frames = set(formats) - whole
        for kind, table in formats.items():
            language = self.arm.text if kind in self.text_frames else "ja"

            def field(inner, value, language=language):
                return self.money_notation(value, language) if inner == "money_text" else self.convert(inner, value)

            mapped = self.converters.get(kind)

            def converter(value, kind=kind, table=table, first=mapped, field=field, language=language):
                if first is not None:  # a kind with a map (banking's descriptions): the map first
                    try:
                        return first(value)
                    except Unmapped:
                        pass
                result = convert_format(table, value, field, language) if isinstance(value, str) else None
                if result is None:
                    raise Unmapped(kind, value, "matches none of the rules' formats" +
                                   (" and is not in the maps" if first else ""))
                return result
            self.converters[kind] = converter
        return self

    def money_notation(self, value, language: str) -> str:
        """An amount of a format's text (`money_text`) in the arm's money and `language`'s notation:
        `200円`, `¥200`, or the source's `$2.0` (the source's figure as written)."""
        if not self.arm.localizes_entities:
            return f"${value}"
        return yen_in(language, self.money(value), self.maps.locale.currency.suffix)

    def keep(self, values) -> "Localizer":
        """Values kept as they are whatever the kind (the rules' sentinels)."""
        self.kept = frozenset(values)
        return self

    kept: frozenset = frozenset()

    def convert(self, kind: str, value):
        if isinstance(value, str) and value in self.kept:
            return value
        try:
            converter = self.converters[kind]
        except KeyError:
            raise Unmapped(kind, value, f"unknown kind {kind!r} (known: {', '.join(self.kinds)})") from None
        if not self.localizes(kind):
            return value
        result = converter(value)
        if kind in KEYS and isinstance(value, str):
            self.seen.setdefault(kind, {}).setdefault(result, set()).add(value)
        return result

    def collisions(self) -> list[str]:
        """Values the tools look up by that two different source values became: a decoy email
        that turned into a real one would make a failing lookup succeed."""
        return [f"{kind}: {', '.join(repr(v) for v in sorted(sources))} all become {target!r}"
                for kind, targets in sorted(self.seen.items())
                for target, sources in sorted(targets.items()) if len(sources) > 1]

    # --- helpers -------------------------------------------------------------------------

    @staticmethod
    def _format(kind: str, convert: Callable) -> Callable:
        def converter(value):
            try:
                return convert(value)
            except (notations.FormatError, MoneyError) as exc:
                raise Unmapped(kind, value, str(exc)) from None
        return converter

    def cardholder(self, value):
        """`LIANG JINHAI` -> the romaji of the customer it names, upper case as Japanese cards print
        it (`KENTA TAKAHASHI`): the source name in either order, in any case."""
        if isinstance(value, str):
            for source, person in self.maps.banking.people.items():
                if value.upper() in {source.upper(), " ".join(reversed(source.split())).upper()}:
                    return person.romaji.upper()
        raise Unmapped("cardholder", value, "names no person of entity_maps/banking.yaml")

    @staticmethod
    def _lookup(table: dict, kind: str, value):
        if not isinstance(value, str) or value not in table:
            raise Unmapped(kind, value)
        return table[value]

    def romaji_pair(self, first: str, last: str, kind: str, value: str) -> tuple[str, str]:
        given, family = self.given_lower.get(first), self.family_lower.get(last)
        if given is None or family is None:
            missing = first if given is None else last
            raise Unmapped(kind, value, f"name part {missing!r} is not in people.yaml")
        return given.romaji.lower(), family.romaji.lower()

    # --- derived and composite kinds -----------------------------------------------------

    def user_id(self, value):
        match = USER_ID.match(value) if isinstance(value, str) else None
        if not match:
            raise Unmapped("user_id", value, "not of the form first_last_digits")
        first, last = self.romaji_pair(match[1], match[2], "user_id", value)
        return f"{first}_{last}_{match[3]}"

    def full_name(self, value):
        """`John Smith` -> `高橋 健太` (family name first, JA_STYLE.md)."""
        match = FULL_NAME.match(value) if isinstance(value, str) else None
        if not match:
            raise Unmapped("full_name", value, "not of the form 'First Last'")
        return self.person(match[1], match[2])

    def person(self, given: str, family: str) -> str:
        """A person's Japanese name: family name first, one space (JA_STYLE.md)."""
        return f"{self.convert('family_name', family)} {self.convert('given_name', given)}"

    def email(self, value):
        """`mei.brown7075@x` -> `mei.suzuki7075@x`.  Mistyped forms stay the same near miss:
        `meibrown7075@` (no dot) and `brown7075@` (one name part) keep their shape."""
        if isinstance(value, str) and value in self.maps.people.emails:
            return self.maps.people.emails[value]
        match = EMAIL.match(value) if isinstance(value, str) else None
        if not match:
            raise Unmapped("email", value, "not of the form first.lastdigits@domain (nor in people.yaml emails)")
        words, dot, rest, digits, domain = match.groups()
        if dot:
            first, last = self.romaji_pair(words, rest, "email", value)
            return f"{first}.{last}{digits}@{domain}"
        letters = words + rest
        if letters in self.family_lower:
            return f"{self.family_lower[letters].romaji.lower()}{digits}@{domain}"
        if letters in self.given_lower:
            return f"{self.given_lower[letters].romaji.lower()}{digits}@{domain}"
        for cut in range(1, len(letters)):
            if letters[:cut] in self.given_lower and letters[cut:] in self.family_lower:
                first, last = self.romaji_pair(letters[:cut], letters[cut:], "email", value)
                return f"{first}{last}{digits}@{domain}"
        raise Unmapped("email", value, "local part is not built from names of people.yaml")

    def option_value(self, value, option: str):
        """The value of option `option` (its English name): the option's own rendering if the
        catalog gives one (option_overrides), else the global one."""
        if not self.localizes("option_value"):
            return value
        own = self.maps.catalog.option_overrides.get(option, {})
        return own[value] if isinstance(value, str) and value in own else self.convert("option_value", value)

    def option_wording(self, value):
        """How a task words an option value ("full" for the keyboard's "full size")."""
        catalog = self.maps.catalog
        wording = self._lookup(catalog.value_aliases, "option_wording", value)
        return self._lookup(catalog.option_values, "option_value", wording)

    def address_city(self, value):
        city = self._lookup(self.maps.places.cities, "address_city", value)
        if not city.address_city:
            raise Unmapped("address_city", value, "city has no address_city in places.yaml")
        return city.address_city

    def address1(self, value):
        """`975 Sunset Drive` -> `夕陽ケ丘9-7-5`: town of the street, then the house number's
        digits as chome-ban-go (all but the last two digits, then each of those; 0 -> 10)."""
        match = ADDRESS1.match(value) if isinstance(value, str) else None
        if not match:
            raise Unmapped("address1", value, "not of the form 'NUMBER STREET'")
        town = self._lookup(self.maps.addresses.streets, "address1", match[2])
        digits = match[1]
        tens, ones = (int(d) or 10 for d in digits[-2:].rjust(2, "0"))
        chome = digits[:-2].lstrip("0")
        return f"{town}{chome + '-' if chome else ''}{tens}-{ones}"

    def address2(self, value):
        if value in (None, ""):
            return value
        match = self.suite_pattern.match(value) if isinstance(value, str) else None
        if not match:
            raise Unmapped("address2", value, f"not of the form {self.maps.addresses.suite.source!r}")
        return self.maps.addresses.suite.target.format(n=match["n"])

    def money(self, value):
        if value is None:  # an optional amount not set (tau2 dumps it as null)
            return None
        try:
            return convert_amount(value, self.rate)
        except MoneyError as exc:
            raise Unmapped("money", value, str(exc)) from None

    def money_expression(self, value):
        try:
            return convert_expression(value, self.rate)
        except MoneyError as exc:
            raise Unmapped("money_expression", value, str(exc)) from None
