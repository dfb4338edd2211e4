"""Reviewers' CAT formats: the memory exports to PO, XLIFF and TMX that other tools read, and a
reviewed translation comes back in and into the output."""

from __future__ import annotations

import json
import re
import shutil

import polib
from lxml import etree

from conftest import ROOT, jtau

XLIFF = "{urn:oasis:names:tc:xliff:document:1.1}"


def test_the_drafts_export_as_po_xliff_and_tmx_that_other_tools_read(tmp_path):
    for suffix in ("po", "xlf", "tmx"):
        result = jtau("tm", "export", "airline", "--status", "draft", "-o", str(tmp_path / f"a.{suffix}"))
        assert result.returncode == 0, result.stderr
    po = polib.pofile(str(tmp_path / "a.po"))
    entries = [json.loads(line) for line in (ROOT / "data" / "tm" / "airline.jsonl").read_text().splitlines()]
    drafts = {e["key"]: e for e in entries if e["status"] == "draft"}
    assert len(po) == len(drafts) == 553
    unit = po[0]
    assert drafts[unit.msgctxt]["source"] == unit.msgid and drafts[unit.msgctxt]["target"] == unit.msgstr
    assert "status: draft" in unit.comment and "where: " in unit.comment
    xliff = etree.parse(str(tmp_path / "a.xlf")).findall(f".//{XLIFF}trans-unit")
    assert len(xliff) == 553 and xliff[0].get("id") in drafts
    assert len(etree.parse(str(tmp_path / "a.tmx")).findall(".//tu")) == 553
    again = jtau("tm", "export", "airline", "--status", "draft", "-o", str(tmp_path / "b.po"))
    assert again.returncode == 0 and (tmp_path / "b.po").read_bytes() == (tmp_path / "a.po").read_bytes()


def test_a_reviewed_translation_comes_back_from_po_into_the_output(project, tmp_path):
    shutil.copytree(ROOT / "data" / "tm", project / "data" / "tm")
    exported = tmp_path / "review.po"
    assert jtau("tm", "export", "airline", "--status", "draft", "-o", str(exported), root=project).returncode == 0
    po = polib.pofile(str(exported))
    unit = next(u for u in po if u.msgid == "You want to cancel reservation {RESERVATION_ID_1}.")
    unit.msgstr = "予約{RESERVATION_ID_1}を取り消したいと考えています。"
    po.save(str(exported))
    result = jtau("tm", "import", "airline", str(exported), "--status", "reviewed", root=project)
    assert result.returncode == 0, result.stderr
    memory = {json.loads(l)["key"]: json.loads(l) for l in (project / "data/tm/airline.jsonl").read_text().splitlines()}
    entry = memory[unit.msgctxt]
    assert entry["status"] == "reviewed" and entry["target"] == unit.msgstr
    reviewed = [e for e in memory.values() if e["status"] == "reviewed"]
    assert len(reviewed) == 553  # the whole file came back reviewed, unchanged texts included

    out = tmp_path / "out"
    localized = jtau("localize", "airline", "--offline", "--out", str(out), root=project)
    assert localized.returncode == 0, localized.stderr
    assert "予約EHGLP3を取り消したいと考えています。" in (out / "airline" / "tasks.json").read_text()

    unit.msgstr = "予約{RESERVATION_ID_1}をキャンセルしたいです。"
    po.save(str(exported))
    refused = jtau("tm", "import", "airline", str(exported), root=project)  # a draft over a reviewed entry
    assert refused.returncode == 1 and "would overwrite a reviewed translation; use --force" in refused.stderr
    forced = jtau("tm", "import", "airline", str(exported), "--status", "reviewed", "--force", root=project)
    assert forced.returncode == 0, forced.stderr


def test_a_new_hint_term_exports_each_segment_it_touches_with_its_previous_translation(project, tmp_path):
    shutil.copytree(ROOT / "data" / "tm", project / "data" / "tm")
    glossary = project / "glossaries" / "ja.yaml"
    glossary.write_text(glossary.read_text().replace("terms:\n", "terms:\n  refund: {ja: 返金, mode: hint}\n", 1))
    memory = [json.loads(line) for line in (ROOT / "data" / "tm" / "airline.jsonl").read_text().splitlines()]
    touched = {e["key"]: e for e in memory if e["status"] != "stale" and re.search(r"(?<![\w-])[Rr]efund(?![\w-])", e["source"])}
    assert len(touched) > 20

    exported = tmp_path / "missing.jsonl"
    assert jtau("tm", "export", "airline", "-o", str(exported), root=project).returncode == 0
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    assert {line["key"] for line in lines} == set(touched)
    for line in lines:
        previous = touched[line["key"]]
        assert line["previous"] == {"target": previous["target"], "hints": previous.get("hints", {})}
        assert line["hints"]["refund"] == "返金" and "target" not in line

    po_file = tmp_path / "missing.po"
    assert jtau("tm", "export", "airline", "-o", str(po_file), root=project).returncode == 0
    units = {unit.msgctxt: unit for unit in polib.pofile(str(po_file))}
    assert set(units) == set(touched)
    assert all(u.fuzzy and u.msgstr == touched[k]["target"] and "previous translation filled in" in u.comment
               for k, u in units.items())

    kept = tmp_path / "kept.jsonl"  # a reviewer keeps every previous translation as it is
    kept.write_text("".join(json.dumps({"key": l["key"], "target": l["previous"]["target"]}) + "\n" for l in lines))
    result = jtau("tm", "import", "airline", str(kept), root=project)
    assert all("返金" in e["target"] for e in touched.values())  # the team wrote 返金 throughout
    assert result.returncode == 0 and f"{len(touched)} translations recorded" in " ".join(result.stdout.split())
    localized = jtau("localize", "airline", "--offline", "--out", str(tmp_path / "out"), root=project)
    assert localized.returncode == 0, localized.stderr
