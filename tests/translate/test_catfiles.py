"""Reviewers' CAT formats, on real exports of the committed memory: placeholders as inline codes
(XLIFF, TMX) or python-brace-format (PO), a state per XLIFF unit and a status per TMX unit, what
CAT tools read from them (translate-toolkit's pocount, pofilter, xliff2po and po2xliff; GNU
msgfmt), the OASIS XLIFF 1.2 strict schema and the TMX 1.4 DTD, import by key or by English
source, locations a person can follow, and what export and import say."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import polib
import pytest
from lxml import etree
from translate.tools.pocount import calcstats

from conftest import ROOT, jtau
from jtau.text.template import PLACEHOLDER
from jtau.translate.catfiles import Unit
from jtau.translate.client import Job
from jtau.translate.exchange import find_segment

TOOLS = Path(sys.executable).parent  # translate-toolkit's commands, installed with jtau
X = "{urn:oasis:names:tc:xliff:document:1.2}"
XSD = Path("/usr/share/php/Symfony/Component/Translation/Resources/schemas/xliff-core-1.2-strict.xsd")
OMEGAT_JAR = Path("/usr/share/omegat/OmegaT.jar")
REFUND = re.compile(r"(?<![\w-])[Rr]efund(?![\w-])")
pytestmark = pytest.mark.xdist_group("catfiles")  # one worker makes the module's exports (`committed`, `mixed`)


def memory(root: Path = ROOT, domain: str = "airline") -> dict[str, dict]:
    return {e["key"]: e for e in map(json.loads, (root / "data" / "tm" / f"{domain}.jsonl").read_text().splitlines())}


def export(root: Path, domain: str, out: Path, *options: str) -> Path:
    result = jtau("tm", "export", domain, "-o", str(out), *options, root=root)
    assert result.returncode == 0, result.stderr
    return out


def tool(name: str, *args) -> subprocess.CompletedProcess:
    result = subprocess.run([str(TOOLS / name), "--progress=none", *map(str, args)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def committed(tmp_path_factory):
    """Exports (--status all) of the committed memory, made once per domain and suffix."""
    folder, made = tmp_path_factory.mktemp("committed"), {}

    def get(domain: str, suffix: str) -> Path:
        if (domain, suffix) not in made:
            made[domain, suffix] = export(ROOT, domain, folder / f"{domain}.{suffix}", "--status", "all")
        return made[domain, suffix]
    return get


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """The committed airline memory with every status, exported to PO, XLIFF and TMX: 7 entries
    removed (missing), 11 made reviewed, 3 machine, the rest drafts, and a new hint term (refund)
    that turns every segment naming it into a missing one with its previous translation."""
    root = tmp_path_factory.mktemp("mixed") / "project"
    for folder in ("entity_maps", "glossaries", "task_patches"):
        shutil.copytree(ROOT / folder, root / folder)
    glossary = root / "glossaries" / "ja.yaml"
    glossary.write_text(glossary.read_text().replace("terms:\n", "terms:\n  refund: {ja: 返金, mode: hint}\n", 1))
    status, kept = {}, []
    for key, entry in memory().items():
        if REFUND.search(entry["source"]):
            status[key] = "previous"
        elif list(status.values()).count("missing") < 7:
            status[key] = "missing"
            continue
        elif list(status.values()).count("reviewed") < 11:
            status[key] = entry["status"] = "reviewed"
        elif list(status.values()).count("machine") < 3:
            status[key] = entry["status"] = "machine"
            entry.update(engine="openai", model="gpt-test")
        else:
            status[key] = "draft"
        kept.append(json.dumps(entry, ensure_ascii=False))
    (root / "data" / "tm").mkdir(parents=True)
    (root / "data" / "tm" / "airline.jsonl").write_text("\n".join(kept) + "\n")
    files = {suffix: export(root, "airline", root / f"airline.{suffix}", "--status", "all")
             for suffix in ("po", "xlf", "tmx")}
    return SimpleNamespace(root=root, status=status, files=files, memory=memory())


def xliff_units(path: Path) -> dict[str, etree._Element]:
    return {unit.get("id"): unit for unit in etree.parse(str(path)).iter(f"{X}trans-unit")}


def xliff_schema() -> etree.XMLSchema:
    if not XSD.is_file():
        pytest.skip(f"OASIS XLIFF 1.2 strict schema not found ({XSD}): apt-get install php-symfony-translation "
                    "(.ci/run installs it)")
    tree = etree.parse(str(XSD))
    for imported in tree.getroot().iter("{http://www.w3.org/2001/XMLSchema}import"):  # xml.xsd, beside it
        imported.set("schemaLocation", (XSD.parent / "xml.xsd").as_uri())
    return etree.XMLSchema(tree)


def tmx_dtd() -> etree.DTD:
    given = os.environ.get("JTAU_TMX_DTD")
    if given and Path(given).is_file():
        return etree.DTD(given)
    if OMEGAT_JAR.is_file():
        return etree.DTD(io.BytesIO(zipfile.ZipFile(OMEGAT_JAR).read("schemas/tmx14.dtd")))
    pytest.skip("TMX 1.4 DTD not found: set JTAU_TMX_DTD to a tmx14.dtd or apt-get install omegat "
                "(.ci/run unpacks it from Debian's omegat package)")


def test_each_status_reads_the_same_in_po_xliff_and_tmx(mixed):
    """2. XLIFF 1.2 with a state per unit and approved only for reviewed; PO fuzzy exactly where
    XLIFF says needs-review; TMX only units with a translation, the status as a prop."""
    status, previous = mixed.status, {k for k, s in mixed.status.items() if s == "previous"}
    assert len(previous) > 20 and {s: list(status.values()).count(s) for s in ("missing", "reviewed", "machine")} \
        == {"missing": 7, "reviewed": 11, "machine": 3}
    root = etree.parse(str(mixed.files["xlf"])).getroot()
    assert root.tag == f"{X}xliff" and root.get("version") == "1.2"
    units = xliff_units(mixed.files["xlf"])
    assert set(units) == set(status)
    want = {"missing": "needs-translation", "previous": "needs-review-translation", "draft": "translated",
            "machine": "translated", "reviewed": "signed-off"}
    for key, unit in units.items():
        target = unit.find(f"{X}target")
        assert target.get("state") == want[status[key]], key
        assert unit.get("approved") == ("yes" if status[key] == "reviewed" else None), key
        assert target.get("state-qualifier") == ("leveraged-mt" if status[key] == "machine" else None), key
        text = "".join(target.itertext())
        if status[key] == "missing":
            assert text == ""
        else:
            assert text == mixed.memory[key]["target"]  # previous: the old translation, filled in

    po = {entry.msgctxt: entry for entry in polib.pofile(str(mixed.files["po"]))}
    assert set(po) == set(status)
    assert {k for k, e in po.items() if e.fuzzy} == previous \
        == {k for k, u in units.items() if u.find(f"{X}target").get("state") == "needs-review-translation"}
    assert {k for k, e in po.items() if not e.msgstr} == {k for k, s in status.items() if s == "missing"}

    translated = {k for k, s in status.items() if s in ("draft", "machine", "reviewed")}
    tmx = etree.parse(str(mixed.files["tmx"]))
    tus = {tu.get("tuid"): tu for tu in tmx.iter("tu")}
    assert set(tus) == translated
    for key, tu in tus.items():
        assert tu.findtext("prop[@type='x-jtau-status']") == status[key]
        segments = [seg.xpath("string()") for seg in tu.iter("seg")]
        assert segments == [mixed.memory[key]["source"], mixed.memory[key]["target"]]


def test_pocount_reads_the_statuses_of_all_three_formats(mixed):
    """translate-toolkit's pocount (calcstats is its count): PO and TMX read drafts, machine and
    reviewed units as translated; PO reads previous translations as fuzzy and missing units as
    untranslated, XLIFF gives every state its own count; TMX holds translations only.
    translate-toolkit reads an XLIFF unit as translated only when approved="yes" (its
    isfuzzy() is `not approved and target`): in its first table XLIFF drafts count as fuzzy."""
    count = {s: list(mixed.status.values()).count(s) for s in ("missing", "previous", "draft", "machine", "reviewed")}
    translated = count["draft"] + count["machine"] + count["reviewed"]
    po, xliff, tmx = (calcstats(str(mixed.files[suffix])) for suffix in ("po", "xlf", "tmx"))
    assert (po["translated"], po["fuzzy"], po["untranslated"]) == (translated, count["previous"], count["missing"])
    assert {state: value["units"] for state, value in xliff["extended"].items()} == {
        "unreviewed": count["draft"] + count["machine"], "final": count["reviewed"],
        "needs-review": count["previous"], "needs-work": count["missing"]}
    assert (xliff["translated"], xliff["untranslated"], xliff["review"]) == (count["reviewed"], count["missing"],
                                                                             count["previous"])
    assert (tmx["translated"], tmx["fuzzy"], tmx["untranslated"]) == (translated, 0, 0)


def test_xliff_exports_validate_against_the_oasis_xliff_12_strict_schema(mixed, committed):
    schema = xliff_schema()
    for path in (mixed.files["xlf"], committed("retail", "xlf"), committed("telecom", "xlf")):
        assert schema.validate(etree.parse(str(path))), (path, schema.error_log)
    # the check can fail: jtau's former XLIFF 1.1 namespace, a state the schema does not know
    text = mixed.files["xlf"].read_text()
    for broken in (text.replace("xliff:document:1.2", "xliff:document:1.1"), text.replace('"signed-off"', '"done"')):
        assert not schema.validate(etree.fromstring(broken.encode()))


def test_tmx_exports_validate_against_the_tmx_14_dtd(mixed, committed):
    dtd = tmx_dtd()
    for path in (mixed.files["tmx"], committed("retail", "tmx"), committed("telecom", "tmx")):
        assert dtd.validate(etree.parse(str(path))), (path, dtd.error_log)
    assert not dtd.validate(etree.fromstring(mixed.files["tmx"].read_bytes().replace(b' srclang="en"', b"", 1)))


def test_placeholders_are_inline_codes_that_carry_what_they_render(mixed, committed):
    """1. XLIFF <ph> with the rendered entity as equiv-text, TMX <ph>; the text around them holds
    no placeholder, so a CAT tool protects every one."""
    units = xliff_units(mixed.files["xlf"])
    key = next(k for k, e in mixed.memory.items() if e["source"] == "You are {PERSON_1}.")
    source = units[key].find(f"{X}source")
    ph = source.find(f"{X}ph")
    assert (source.text, ph.text, ph.tail) == ("You are ", "{PERSON_1}", ".")
    assert dict(ph.attrib) == {"id": "1", "ctype": "x-person", "equiv-text": "金子 恵美"}  # task 0 is Emma Kim's
    assert [dict(c.attrib) for c in units[key].find(f"{X}target")] == [dict(ph.attrib)]
    codes = 0
    for other, unit in units.items():
        for part in (unit.find(f"{X}source"), unit.find(f"{X}target")):
            text = (part.text or "") + "".join(child.tail or "" for child in part)
            assert not PLACEHOLDER.search(text), other
            names = [child.text for child in part if child.tag == f"{X}ph"]
            codes += len(names)
            reference = mixed.memory[other]["source" if part.tag == f"{X}source" else "target"]
            assert names == ["{" + name + "}" for name in PLACEHOLDER.findall(reference)] or part.tag == f"{X}target" \
                and mixed.status[other] == "missing"
    assert codes > 500
    tu = next(tu for tu in etree.parse(str(mixed.files["tmx"])).iter("tu") if tu.get("tuid") == key)
    assert [dict(ph.attrib) for ph in tu.iter("ph")] == [{"x": "1", "type": "x-person"}] * 2


def test_po_placeholders_are_brace_format_and_literal_braces_do_not_trip_the_checks(committed, tmp_path):
    """1. PO: python-brace-format on every unit with a placeholder or a brace, retail's literal
    `{'color': 'blue'}` doubled; GNU msgfmt's format check and pofilter's placeholder checks pass
    on correct exports and pofilter finds each broken placeholder of an edited file."""
    retail = polib.pofile(str(committed("retail", "po")))
    literal = next(e for e in retail if "'color': 'blue'" in e.msgid)
    assert "{{'color': 'blue'" in literal.msgid and "{ORDER_ID_1}" in literal.msgid
    assert "{{'色': 'ブルー'" in literal.msgstr
    for entry in retail:
        assert ("python-brace-format" in entry.flags) == ("{" in entry.msgid), entry.msgctxt
    placeholder_checks = ("-t", "pythonbraceformat", "-t", "variables")
    for domain in ("airline", "retail", "telecom"):
        path = committed(domain, "po")
        if shutil.which("msgfmt"):
            checked = subprocess.run(["msgfmt", "--check-format", "-o", os.devnull, str(path)],
                                     capture_output=True, text=True)
            assert checked.returncode == 0, checked.stderr
        tool("pofilter", *placeholder_checks, path, tmp_path / f"{domain}.found.po")
        found = tmp_path / f"{domain}.found.po"
        assert not found.exists() or not [e for e in polib.pofile(str(found)) if e.msgid], domain

    airline = polib.pofile(str(committed("airline", "po")))
    dropped = next(e for e in airline if e.msgid == "You want to cancel reservation {RESERVATION_ID_1}.")
    dropped.msgstr = "予約をキャンセルしたいと考えています。"
    renamed = next(e for e in airline if e.msgid == "You are {PERSON_1}.")
    renamed.msgstr = "あなたは{PERSON_2}です。"
    edited = tmp_path / "edited.po"
    airline.save(str(edited))
    tool("pofilter", *placeholder_checks, edited, tmp_path / "found.po")
    found = {e.msgctxt: e.tcomment for e in polib.pofile(str(tmp_path / "found.po")) if e.msgid}
    assert set(found) == {dropped.msgctxt, renamed.msgctxt}
    assert "RESERVATION_ID_1" in found[dropped.msgctxt] and "PERSON_2" in found[renamed.msgctxt]

    # with its literal braces doubled, a unit like retail's is checked too (gettext skips a msgid
    # that is not a valid brace format, and pofilter would report the dicts themselves)
    literal.msgstr = literal.msgstr.replace("{ORDER_ID_1}", "")
    retail.save(str(edited))
    tool("pofilter", *placeholder_checks, edited, tmp_path / "found.po")
    found = [e.tcomment for e in polib.pofile(str(tmp_path / "found.po")) if e.msgid]
    assert found == ["(pofilter) pythonbraceformat: Named placeholders absent in translation: {ORDER_ID_1}"]
    if shutil.which("msgfmt"):
        checked = subprocess.run(["msgfmt", "--check-format", "-o", os.devnull, str(edited)],
                                 capture_output=True, text=True)
        assert checked.returncode == 1 and "argument 'ORDER_ID_1' doesn't exist in 'msgstr'" in checked.stderr


def test_import_maps_codes_and_braces_back_exactly(project, committed, tmp_path):
    """1. The retail PO with its doubled braces and the XLIFF with its codes import back as the
    memory has them (all unchanged); a tool's rewritten code (<x id="1"/>) is read through the
    source's code of the same id; a code that stands for nothing is refused."""
    shutil.copytree(ROOT / "data" / "tm", project / "data" / "tm")
    for domain, suffix in (("retail", "po"), ("retail", "xlf"), ("airline", "tmx")):
        result = jtau("tm", "import", domain, str(committed(domain, suffix)), root=project)
        assert result.returncode == 0, result.stderr
        drafts = sum(e["status"] == "draft" for e in memory(ROOT, domain).values())
        assert f"0 changed, 0 status only (now draft), {drafts} unchanged, 0 refused" in result.stdout, result.stdout
    assert memory(project, "retail") == memory(ROOT, "retail")

    text = committed("airline", "xlf").read_text()
    key = next(k for k, e in memory().items() if e["source"] == "You are {PERSON_1}.")
    original = re.search(f'<trans-unit id="{key}".*?</trans-unit>', text, re.S)[0]
    rewritten = re.sub(r"<target state=\"translated\">.*?</target>",
                       '<target state="translated">あなたは<x id="1"/>さんです。</target>', original)
    unknown = rewritten.replace(key, "0000000000000000").replace('<x id="1"/>', '<x id="9"/>')
    edited = tmp_path / "edited.xlf"
    edited.write_text(text.replace(original, rewritten + "\n      " + unknown))
    result = jtau("tm", "import", "airline", str(edited), root=project)
    assert result.returncode == 1
    assert memory(project)[key]["target"] == "あなたは{PERSON_1}さんです。"
    line = text[:text.index(original)].count("\n") + 1 + original.count("\n") + 1
    assert f"edited.xlf:{line}: 0000000000000000: inline code <x id='9'> stands for none of the source's" \
        in " ".join(result.stderr.split())


def test_an_xliff_converted_by_xliff2po_and_po2xliff_imports_back_exactly_the_edited_entries(
        project, committed, tmp_path):
    """3. The converters drop the memory keys; units are found by their English source."""
    shutil.copytree(ROOT / "data" / "tm", project / "data" / "tm")
    before = memory(project)
    po = tmp_path / "converted.po"
    tool("xliff2po", committed("airline", "xlf"), po)
    converted = polib.pofile(str(po))
    assert len(converted) == len(before) and not any(e.msgctxt for e in converted)
    edits = {"You are {PERSON_1}.": "あなたは{PERSON_1}さんです。",
             "You want to cancel reservation {RESERVATION_ID_1}.":
                 "予約{RESERVATION_ID_1}を取り消したいと考えています。"}
    for entry in converted:
        entry.msgstr = edits.get(entry.msgid, entry.msgstr)
    converted.save(str(po))
    back = tmp_path / "back.xlf"
    tool("po2xliff", po, back)
    assert not set(xliff_units_any(back)) & set(before)  # po2xliff numbers the units
    result = jtau("tm", "import", "airline", str(back), root=project)
    assert result.returncode == 0, result.stderr
    assert f"2 changed, 0 status only (now draft), {len(before) - 2} unchanged, 0 refused" in result.stdout
    after = memory(project)
    changed = {k for k in after if after[k] != before[k]}
    assert {after[k]["source"]: after[k]["target"] for k in changed} == edits and set(after) == set(before)

    stranger = polib.POEntry(msgid="You want to fly to the moon.", msgstr="月へ行きたいと考えています。")
    converted.append(stranger)
    converted.save(str(po))
    tool("po2xliff", po, back)
    result = jtau("tm", "import", "airline", str(back), root=project)
    assert result.returncode == 1
    line = next(n for n, text in enumerate(back.read_text().splitlines(), 1) if "<trans-unit" in text and
                'id="' + str(len(converted) + 2) + '"' in text)  # po2xliff's id: the header, then one a unit
    assert (f"back.xlf:{line}: {len(converted) + 2} 'You want to fly to the moon.': no segment of this domain has this "
            "key or this English source") in " ".join(result.stderr.split())


def xliff_units_any(path: Path) -> dict[str, etree._Element]:
    """Trans-units of an XLIFF of any version (po2xliff writes 1.1)."""
    return {u.get("id"): u for u in etree.parse(str(path)).iter() if etree.QName(u).localname == "trans-unit"}


def test_units_sharing_an_english_source_are_told_apart_by_register_and_legend():
    """3. No committed source is shared by two segments; a shared one is found by the note's
    register (and placeholder legend), else refused with the kinds."""
    jobs = {"a": Job("a", "policy", "email", {}), "b": Job("b", "user", "email", {})}
    by_source = {"email": list(jobs.values())}
    user_unit = Unit("", "email", "メール", note="status: draft\nregister: user")
    assert find_segment(user_unit, jobs, by_source, {})[0] is jobs["b"]
    job, why = find_segment(Unit("", "email", "メール"), jobs, by_source, {})
    assert job is None and "is the English of 2 segments (policy, user)" in why and "keep the key" in why
    info = {"a": {"placeholders": {}}, "b": {"placeholders": {"PERSON_1": ("Emma Kim", "金子 恵美")}}}
    same = {"c": Job("c", "user", "You are {PERSON_1}.", {}), "d": Job("d", "user", "You are {PERSON_1}.", {})}
    info |= {"c": {"placeholders": {"PERSON_1": ("Emma Kim", "金子 恵美")}},
             "d": {"placeholders": {"PERSON_1": ("Mia Li", "李 美亜")}}}
    unit = Unit("", "You are {PERSON_1}.", "x", note="register: user\nplaceholder PERSON_1: Mia Li -> 李 美亜")
    assert find_segment(unit, same, {"You are {PERSON_1}.": list(same.values())}, info)[0] is same["d"]


def test_locations_name_the_line_of_a_policy_segment_and_the_field_of_a_task(mixed, domains_dir, airline_source):
    """4. `policy.md:42` (a PO reference, an XLIFF location context) and `tasks.json task 7
    user_scenario.instructions.reason_for_call`, both pointing at the English (of the repaired tasks)."""
    policy = (domains_dir / "airline" / "policy.md").read_text().split("\n")
    tasks = {task["id"]: task for task in airline_source["tasks"]}
    po = polib.pofile(str(mixed.files["po"]))
    lines = tasks_seen = 0
    for entry in po:
        first = re.split(PLACEHOLDER.pattern, entry.msgid.replace("{{", "{").replace("}}", "}"))[0].strip()
        for file, line in entry.occurrences:
            assert file == "policy.md" and first in policy[int(line) - 1], (entry.msgid, line)
            lines += 1
        for where in re.findall(r"^where: (tasks\.json task .*)$", entry.comment, re.M):
            _, _, task_id, path = where.split(" ", 3)
            value = tasks[task_id]
            for part in re.findall(r"[^.\[\]]+", path):
                value = value[int(part)] if isinstance(value, list) else value[part]
            assert first in value, (where, first)
            tasks_seen += 1
    assert lines > 100 and tasks_seen > 300
    assert any("where: tasks.json task 7 user_scenario.instructions.reason_for_call" in e.comment for e in po)
    unit = xliff_units(mixed.files["xlf"])[next(e.msgctxt for e in po if e.occurrences)]
    group = unit.find(f"{X}context-group")
    assert group.get("purpose") == "location" and [c.get("context-type") for c in group] == ["sourcefile", "linenumber"]


def test_export_says_what_to_ask_for_when_nothing_matches(project, mixed, tmp_path):
    """5. The committed memory lacks nothing: the default (missing) names --status draft / all."""
    shutil.copytree(ROOT / "data" / "tm", project / "data" / "tm")
    out = tmp_path / "missing.po"
    result = jtau("tm", "export", "airline", "-o", str(out), root=project)
    drafts = sum(e["status"] == "draft" for e in memory().values())
    assert result.returncode == 1 and not out.exists()
    assert result.stderr.strip() == (f"airline: no missing segments (the domain has {drafts} draft); nothing written: "
                                     "use --status draft or --status all")
    tmx = jtau("tm", "export", "airline", "-o", str(tmp_path / "m.tmx"), root=mixed.root)
    assert tmx.returncode == 1 and "TMX holds translations only" in tmx.stderr
    assert "export them as .po or .xlf" in tmx.stderr
    missing = sum(s in ("missing", "previous") for s in mixed.status.values())
    everything = jtau("tm", "export", "airline", "--status", "all", "-o", str(tmp_path / "all.tmx"), root=mixed.root)
    assert f"{len(mixed.status) - missing} segments (all) written" in everything.stdout
    assert f"{missing} without a translation left out" in everything.stdout


def test_import_counts_what_changed_and_how_many_problems_there_are(project, committed, tmp_path):
    """5. changed / status only / unchanged / refused, and the total when the list is cut."""
    shutil.copytree(ROOT / "data" / "tm", project / "data" / "tm")
    po = polib.pofile(str(committed("airline", "po")))
    total = len(po)
    next(e for e in po if e.msgid == "You are {PERSON_1}.").msgstr = "あなたは{PERSON_1}さんです。"
    edited = tmp_path / "edited.po"
    po.save(str(edited))
    said = lambda r: " ".join(r.stdout.split())  # noqa: E731
    first = jtau("tm", "import", "airline", str(edited), "--status", "reviewed", root=project)
    assert first.returncode == 0, first.stderr
    assert f"airline: 1 changed, {total - 1} status only (now reviewed), 0 unchanged, 0 refused" in said(first)
    again = jtau("tm", "import", "airline", str(edited), "--status", "reviewed", root=project)
    assert f"0 changed, 0 status only (now reviewed), {total} unchanged, 0 refused" in said(again)
    assert {e["status"] for e in memory(project).values()} == {"reviewed"}

    for entry in po[:70]:
        entry.msgstr = "English only."
    po.save(str(edited))
    refused = jtau("tm", "import", "airline", str(edited), "--dry-run", root=project)
    problems = refused.stderr.strip().splitlines()
    assert refused.returncode == 1 and len(problems) == 61
    assert "70 refused; nothing written (--dry-run)" in said(refused)
    assert problems[-1].strip() == "... and 10 more (70 problems in all)"
    where, line = problems[0].strip().split(": ", 1)[0].rsplit(":", 1)
    text = edited.read_text().splitlines()
    assert where == str(edited) and "not Japanese" in problems[0]
    assert text[int(line) - 1].startswith("msgid ") and text[int(line) - 2] == f'msgctxt "{po[0].msgctxt}"'


def test_the_drafts_export_to_the_same_bytes_every_time(committed, tmp_path):
    drafts = {k for k, e in memory().items() if e["status"] == "draft"}  # the whole airline memory
    for suffix in ("po", "xlf", "tmx"):
        again = export(ROOT, "airline", tmp_path / f"again.{suffix}", "--status", "draft")
        assert again.read_bytes() == committed("airline", suffix).read_bytes()
    po_keys = {e.msgctxt for e in polib.pofile(str(again.with_suffix(".po")))}
    assert po_keys == drafts == set(xliff_units(again.with_suffix(".xlf")))


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
    entries = memory(project)
    entry = entries[unit.msgctxt]
    assert entry["status"] == "reviewed" and entry["target"] == unit.msgstr
    assert sum(e["status"] == "reviewed" for e in entries.values()) == 553  # the reviewer confirmed the others

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
    touched = {k: e for k, e in memory().items() if e["status"] != "stale" and REFUND.search(e["source"])}
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
    kept.write_text("".join(json.dumps({"key": line["key"], "target": line["previous"]["target"]}) + "\n"
                            for line in lines))
    result = jtau("tm", "import", "airline", str(kept), root=project)
    assert all("返金" in e["target"] for e in touched.values())  # the team wrote 返金 throughout
    assert result.returncode == 0 and f"{len(touched)} changed" in result.stdout
    assert "0 segments still missing" in " ".join(result.stdout.split())
    localized = jtau("localize", "airline", "--offline", "--out", str(tmp_path / "out"), root=project)
    assert localized.returncode == 0, localized.stderr
