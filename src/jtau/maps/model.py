"""The entity maps as typed data, and the checks that make them safe to apply.

Files (under `entity_maps/`):
    people.yaml     given and family names with kanji, kana and romaji
    places.yaml     airports, cities, states, free-text regions and city spellings
    addresses.yaml  streets, zips, suites, countries
    locale.yaml     currency and exchange rate, time-zone label
    catalog.yaml    retail products, option names and option values

Where the tools compare values the maps must be one to one; a violation is an input error
naming the file and line of the second entry.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from jtau.errors import MapsError
from jtau.project import Project
from jtau.util.yamlfile import YamlDoc, load_yaml

FILES = ("people.yaml", "places.yaml", "addresses.yaml", "locale.yaml", "catalog.yaml", "banking.yaml")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Name(Strict):
    kanji: str
    kana: str
    romaji: str

    @field_validator("romaji")
    @classmethod
    def _ascii(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z]+", value):
            raise ValueError("romaji must be ASCII letters only (Hepburn, no macrons)")
        return value


class People(Strict):
    given_names: dict[str, Name]
    family_names: dict[str, Name]
    emails: dict[str, str] = Field(default_factory=dict)  # emails not built from the names


class Airport(Strict):
    code: str = Field(pattern=r"^[A-Z]{3}$")
    name: str
    city: str


class City(Strict):
    name: str
    address_city: str | None = None
    prefecture: str | None = None


class State(Strict):
    prefecture: str
    text: list[str] = Field(default_factory=list)


class Region(Strict):
    name: str


class TextForm(Strict):
    """How a place or country that free text names reads in the other language's text (jtau.arms)."""
    ja: str | None = None  # the source's place in Japanese text (ja-text): United States -> アメリカ
    en: str | None = None  # J-tau's place in English text (ja-entities): United States (日本) -> Japan


class Places(Strict):
    airports: dict[str, Airport]
    cities: dict[str, City]
    states: dict[str, State]
    regions: dict[str, Region] = Field(default_factory=dict)
    city_aliases: dict[str, str] = Field(default_factory=dict)
    # source text's country and region names (regions, countries, banking's text words) by language
    text_forms: dict[str, TextForm] = Field(default_factory=dict)


class Suite(Strict):
    source: str
    target: str


class Addresses(Strict):
    countries: dict[str, str]
    streets: dict[str, str]
    suite: Suite
    zips: dict[str, str]
    phones: dict[str, str] = Field(default_factory=dict)

    @field_validator("phones")
    @classmethod
    def _mobile(cls, phones: dict[str, str]) -> dict[str, str]:
        for source, target in phones.items():
            if not re.fullmatch(r"0[789]0-\d{4}-\d{4}", target):
                raise ValueError(f"{source}: {target!r} is not a mobile number 0X0-NNNN-NNNN")
        return phones

    @field_validator("zips")
    @classmethod
    def _postal(cls, zips: dict[str, str]) -> dict[str, str]:
        for source, target in zips.items():
            if not re.fullmatch(r"\d{3}-\d{4}", target):
                raise ValueError(f"{source}: postal code {target!r} is not NNN-NNNN")
        return zips


class Catalog(Strict):
    """Retail catalog words: one rendering each, in the db, in orders and in text."""
    products: dict[str, str]
    option_names: dict[str, str]
    option_values: dict[str, str]
    value_aliases: dict[str, str] = Field(default_factory=dict)  # task wording -> value
    # option name -> value -> rendering where one option reads its value otherwise than the global
    # table (a makeup shade "medium" is ミディアム, a desk lamp's brightness "medium" 中)
    option_overrides: dict[str, dict[str, str]] = Field(default_factory=dict)
    plans: dict[str, str] = Field(default_factory=dict)      # telecom plan names
    banking_products: dict[str, str] = Field(default_factory=dict)  # banking_knowledge cards, accounts, plans
    devices: dict[str, str] = Field(default_factory=dict)    # telecom device models
    plain_words: list[str] = Field(default_factory=list)  # values that are ordinary words in text

    def value_terms(self) -> frozenset[str]:
        """The option values among text_terms: matched in lower case only, since a capitalized
        "Brown" or "Maple" in text is a name or a street."""
        return frozenset(v.lower() for v in self.option_values) - {p.lower() for p in self.products}

    def text_terms(self) -> dict[str, str]:
        """English word -> rendering, for the catalog words that task text must render the
        catalog's way (product names; option values other than codes and plain words)."""
        terms = {name.lower(): ja for name, ja in self.products.items()}
        for value, ja in self.option_values.items():
            if value != ja and value not in self.plain_words and value.lower() not in terms:
                terms[value.lower()] = ja
        return terms


class Currency(Strict):
    code: str
    rate: Decimal
    suffix: str
    name_en: str = "yen"             # the currency's name in English text ("every yen counts")
    source_name_ja: str = "ドル"      # the source's currency in Japanese text (「1ドルだって」)

    @field_validator("rate")
    @classmethod
    def _positive_integer(cls, rate: Decimal) -> Decimal:
        if rate <= 0 or rate != rate.to_integral_value():
            raise ValueError("rate must be a positive whole number (yen have no minor unit)")
        return rate


class Locale(Strict):
    locale: str
    currency: Currency
    timezones: dict[str, str] = Field(default_factory=dict)
    timezone_names: dict[str, str] = Field(default_factory=dict)  # a zone label -> its Japanese name
    prefectures: list[str] = Field(default_factory=list)  # the locale's places no source text names
    source_states: list[str] = Field(default_factory=list)  # the source's state codes (en-US), mapped or not
    spoken_forms: dict[str, list[str]] = Field(default_factory=dict)  # value -> how an agent may say it
    institutions: dict[str, str] = Field(default_factory=dict)  # a US institution -> J-tau's, in English


class BankingPerson(Strict):
    """A banking_knowledge customer: the Japanese name as text writes it (family name first)
    and the romaji as a Japanese card prints it (given name first; cardholder = upper case)."""
    name: str
    romaji: str


class Banking(Strict):
    """banking_knowledge's entities, value by value (its names, addresses and emails follow no
    one pattern: "Ahmad Razali bin Mohd Yusof", "47 Bondi Road, Unit 12B, Bondi Beach, NSW 2026")."""
    people: dict[str, BankingPerson] = Field(default_factory=dict)   # source full name -> person
    addresses: dict[str, str] = Field(default_factory=dict)          # source one-line address -> Japanese
    phones: dict[str, str] = Field(default_factory=dict)
    emails: dict[str, str] = Field(default_factory=dict)
    merchants: dict[str, str] = Field(default_factory=dict)
    descriptions: dict[str, str] = Field(default_factory=dict)       # bank transaction descriptions
    # single words text uses for the entities above: a name part ("Sofia" for "Sofia Martinez"),
    # a state code or city of an address ("PA", "Austin")
    text_words: dict[str, str] = Field(default_factory=dict)
    # where an entity's name is a plain word of the text ("Target a specific amount"): text
    # starting with one of these is no entity
    not_entities: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class EntityMaps:
    people: People
    places: Places
    addresses: Addresses
    locale: Locale
    catalog: Catalog
    banking: Banking
    digests: dict[str, str]


def project_maps(project: Project | None = None) -> EntityMaps:
    """The project's maps (its `entity_maps/`), by default of the project jtau runs on (jtau.project)."""
    return load_maps((project or Project.find()).maps)


def load_maps(folder: Path) -> EntityMaps:
    """The maps in `folder`, each file read and all of them checked together."""
    if not folder.is_dir():
        raise MapsError(f"{folder}: entity map folder not found")
    docs = {name: load_yaml(folder / name) for name in FILES}
    maps = EntityMaps(
        people=docs["people.yaml"].parse(People),
        places=docs["places.yaml"].parse(Places),
        addresses=docs["addresses.yaml"].parse(Addresses),
        locale=docs["locale.yaml"].parse(Locale),
        catalog=docs["catalog.yaml"].parse(Catalog),
        banking=docs["banking.yaml"].parse(Banking),
        digests={
            f"entity_maps/{name}": hashlib.sha256((folder / name).read_bytes()).hexdigest()
            for name in FILES
        },
    )
    _check(maps, docs)
    return maps


def _check(maps: EntityMaps, docs: dict[str, YamlDoc]) -> None:
    people, places, addresses = docs["people.yaml"], docs["places.yaml"], docs["addresses.yaml"]
    problems: list[str] = []
    for section in ("given_names", "family_names"):
        entries = getattr(maps.people, section)
        sources = {s.lower() for s in {**maps.people.given_names, **maps.people.family_names}}
        _one_to_one(people, section, {k: v.kanji for k, v in entries.items()}, problems)
        _one_to_one(people, section, {k: v.romaji.lower() for k, v in entries.items()}, problems)
        for key, name in entries.items():
            if name.romaji.lower() in sources and name.romaji.lower() != key.lower():
                problems.append(
                    f"{people.where((section, key))}: romaji {name.romaji!r} is also a source "
                    "name; ids built from it would read as another person's"
                )
    _one_to_one(places, "airports", {k: v.code for k, v in maps.places.airports.items()}, problems)
    _one_to_one(places, "cities", {k: v.name for k, v in maps.places.cities.items()}, problems)
    _one_to_one(
        places, "cities",
        {k: v.address_city for k, v in maps.places.cities.items() if v.address_city}, problems,
    )
    _one_to_one(places, "states", {k: v.prefecture for k, v in maps.places.states.items()}, problems)
    prefectures = {s.prefecture for s in maps.places.states.values()}
    for key, airport in maps.places.airports.items():
        if airport.city not in maps.places.cities:
            problems.append(f"{places.where(('airports', key))}: city {airport.city!r} is not in cities")
    for key, city in maps.places.cities.items():
        if (city.address_city is None) != (city.prefecture is None):
            problems.append(f"{places.where(('cities', key))}: address_city and prefecture go together")
        if city.prefecture and city.prefecture not in prefectures:
            problems.append(
                f"{places.where(('cities', key))}: prefecture {city.prefecture!r} is no state's prefecture"
            )
    for alias, target in maps.places.city_aliases.items():
        if target not in maps.places.cities:
            problems.append(f"{places.where(('city_aliases', alias))}: {target!r} is not in cities")
    catalog = docs["catalog.yaml"]
    # list_all_product_types keys products by name; option words need only stay apart within
    # one option of one product, which the retail validation checks against the db
    _one_to_one(catalog, "products", dict(maps.catalog.products), problems)
    _one_to_one(catalog, "plans", dict(maps.catalog.plans), problems)
    _one_to_one(catalog, "devices", dict(maps.catalog.devices), problems)
    _one_to_one(people, "emails", dict(maps.people.emails), problems)
    _one_to_one(addresses, "phones", dict(maps.addresses.phones), problems)
    for alias, value in maps.catalog.value_aliases.items():
        if value not in maps.catalog.option_values:
            problems.append(f"{catalog.where(('value_aliases', alias))}: {value!r} is not in option_values")
    _one_to_one(addresses, "zips", dict(maps.addresses.zips), problems)
    banking = docs["banking.yaml"]
    _one_to_one(catalog, "banking_products", dict(maps.catalog.banking_products), problems)
    _one_to_one(banking, "people", {k: v.name for k, v in maps.banking.people.items()}, problems)
    _one_to_one(banking, "people", {k: v.romaji.upper() for k, v in maps.banking.people.items()}, problems)
    for section in ("addresses", "phones", "emails", "merchants", "descriptions"):
        _one_to_one(banking, section, dict(getattr(maps.banking, section)), problems)
    _one_to_one(addresses, "streets", dict(maps.addresses.streets), problems)
    if problems:
        raise MapsError("entity maps are inconsistent", problems)


def _one_to_one(doc: YamlDoc, section: str, targets: dict[str, str], problems: list[str]) -> None:
    """Report every source whose target another source already has."""
    seen: dict[str, str] = {}
    for source, target in targets.items():
        if target in seen:
            problems.append(
                f"{doc.where((section, source))}: {section}: {source!r} and {seen[target]!r} both "
                f"map to {target!r}; the tools compare this field, so the map must be one to one"
            )
        else:
            seen[target] = source
