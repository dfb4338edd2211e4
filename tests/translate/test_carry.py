"""`jtau tm carry` (translate/carry.py): a memory entry follows its template when the maps or the
rules come to recognize an entity its text held as words, on the real retail memory and source."""

from __future__ import annotations

import json

from conftest import ROOT, jtau
from jtau.translate.carry import carry
from jtau.translate.tm import Entry, TranslationMemory

# retail task 90: "the price is more than 3000" was words until the rules' `money_in_words` named it
OLD, NEW = "f2ff946c09ef7e18", "b2f2d5c506876cd0"


def committed(key: str) -> Entry:
    for line in (ROOT / "data" / "tm" / "retail.jsonl").read_text().splitlines():
        if json.loads(line)["key"] == key:
            return Entry(**json.loads(line))
    raise AssertionError(f"{key} is not in the committed retail memory")


def memory_of(tmp_path, *entries: Entry) -> TranslationMemory:
    folder = tmp_path / "tm"
    folder.mkdir()
    (folder / "retail.jsonl").write_text("".join(e.to_json() + "\n" for e in entries))
    return TranslationMemory(folder, "retail")


def test_the_old_entry_carries_to_the_committed_one(retail, tmp_path):
    old = committed(OLD)
    assert old.status == "stale" and "more than 3000" in old.source and "300,000円を超える" in old.target
    text = retail.text
    carried = carry(text.segments(), memory_of(tmp_path, old), text.recognizer, text.renderer,
                    retail.maps.locale.locale, retail.glossary)
    [entry] = [e for e in carried.entries if e.key == NEW]
    new = committed(NEW)
    assert (entry.source, entry.target) == (new.source, new.target)
    assert "{MONEY_1}を超える" in entry.target and entry.status == "draft"  # stale_from: what it was
    assert carried.unresolved == []


def test_a_target_without_the_entitys_japanese_is_listed_not_guessed(retail, tmp_path):
    old = committed(OLD)
    old.target = old.target.replace("300,000円", "30万円")  # the same amount, written otherwise
    text = retail.text
    carried = carry(text.segments(), memory_of(tmp_path, old), text.recognizer, text.renderer,
                    retail.maps.locale.locale, retail.glossary)
    assert NEW not in {e.key for e in carried.entries}
    [unresolved] = carried.unresolved
    assert unresolved.old.key == OLD and "'300,000円' 0 times" in unresolved.why


def test_the_command_records_what_it_carried_and_lists_the_rest(tmp_path):
    tm = tmp_path / "tm"
    tm.mkdir()
    old = committed(OLD)
    (tm / "retail.jsonl").write_text(old.to_json() + "\n")
    dry = jtau("tm", "carry", "retail", "--tm", str(tm), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "1 carried, 0 to edit by hand; nothing written (--dry-run)" in dry.stdout
    assert (tm / "retail.jsonl").read_text() == old.to_json() + "\n"
    done = jtau("tm", "carry", "retail", "--tm", str(tm))
    assert done.returncode == 0, done.stderr
    keys = [json.loads(line)["key"] for line in (tm / "retail.jsonl").read_text().splitlines()]
    assert sorted(keys) == sorted([OLD, NEW])
    broken = Entry(**{**json.loads(old.to_json()), "target": old.target.replace("300,000円", "30万円")})
    (tm / "retail.jsonl").write_text(broken.to_json() + "\n")
    listed = jtau("tm", "carry", "retail", "--tm", str(tm))
    assert listed.returncode == 1
    assert f"retail.jsonl:1: {OLD} -> " in listed.stdout + listed.stderr
