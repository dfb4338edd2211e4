"""Review material, segment exchange with translators, and the language QA."""

from __future__ import annotations

import copy
import json
from html.parser import HTMLParser

import pytest

from conftest import PROJECT, jtau
from jtau.domain import LocalizedDomain
from jtau.validate import validate_domain

VOID = {"meta", "br", "hr", "img", "input", "link"}


class Balance(HTMLParser):
    """Checks that every opened element is closed in order."""

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.ids = [], [], set()

    def handle_starttag(self, tag, attrs):
        self.ids |= {v for k, v in attrs if k == "id"}
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


def test_review_page_has_every_task_side_by_side(project, tmp_path):
    out = tmp_path / "review"
    result = jtau("review", "airline", "--page-dir", str(out))
    assert result.returncode == 0, result.stderr
    page = (out / "airline.html").read_text()
    parser = Balance()
    parser.feed(page)
    assert parser.errors == [] and parser.stack == []
    assert {f"task-{i}" for i in range(50)} | {"policy"} <= parser.ids
    assert "あなたは金子 恵美です。" in page and "You are Emma Kim." in page      # task 0, both sides
    assert "Emma Kim → 金子 恵美" in page                                        # the swap is listed
    assert "Repaired</b> (task_035.yaml)" in page and "1981-05-26" in page      # repair with its reason
    assert '<span class="st draft">draft 553</span>' in page
    numbers = json.loads((out / "airline.json").read_text())
    assert numbers["memory"] == {"draft": 553} and numbers["errors"] == [] and numbers["qa_warnings"] == []


def test_export_then_import_fills_an_empty_memory(project, tmp_path):
    tm, segments = tmp_path / "tm", tmp_path / "segments.jsonl"
    result = jtau("tm", "export", "airline", "-o", str(segments), "--tm", str(tm), root=project)
    assert result.returncode == 0, result.stderr
    items = [json.loads(line) for line in segments.read_text().splitlines()]
    assert len(items) == 553
    known = next(i for i in items if i["source"] == "You are {PERSON_1}.")
    assert known["kind"] == "user" and known["placeholders"]["PERSON_1"] == "Emma Kim -> 金子 恵美"
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join([
        json.dumps({"key": known["key"], "target": "あなたは{PERSON_1}です。"}, ensure_ascii=False),
        json.dumps({"key": items[1]["key"], "target": "English only."}),
        json.dumps({"key": "nope", "target": "x"}),
    ]) + "\n")
    result = jtau("tm", "import", "airline", str(answers), "--tm", str(tm), root=project)
    assert result.returncode == 1
    said = " ".join(result.stdout.split())
    assert "airline: 1 changed, 0 status only (now draft), 0 unchanged, 2 refused" in said
    assert "552 segments still missing" in said
    assert f"answers.jsonl:2: {items[1]['key']}" in result.stderr and "not Japanese" in result.stderr
    assert "answers.jsonl:3: nope: no segment of this domain has this key" in result.stderr
    stored = [json.loads(line) for line in (tm / "airline.jsonl").read_text().splitlines()]
    assert stored == [{"key": known["key"], "kind": "user", "status": "draft", "source": "You are {PERSON_1}.",
                       "target": "あなたは{PERSON_1}です。", "engine": "manual"}]


def qa(airline, change):
    out = airline.domain
    domain = LocalizedDomain(out.name, out.db, copy.deepcopy(out.tasks), dict(out.policies))
    change(domain)
    return validate_domain(airline.source, domain, airline.maps, airline.rules, airline.glossary)


def test_the_exchange_reads_an_unvalidated_run_that_nothing_can_write(airline, domains_dir, tmp_path):
    """`jtau tm` runs the pipeline without its checks (they never read the report): the same
    segments and outputs as a validated run, and `finish` refuses to write it."""
    from jtau.pipeline import Options, finish, localize

    plan = localize("airline", PROJECT, domains_dir, options=Options(dry_run=True, validate=False))
    assert not plan.validated and plan.report.stats == {} and airline.report.stats
    assert plan.outputs == airline.outputs and plan.text.segments() == airline.text.segments()
    with pytest.raises(ValueError, match="not validated"):
        finish(plan, tmp_path / "airline", check=False)
    assert not (tmp_path / "airline").exists()


def test_language_qa_flags_placeholders_english_and_glossary(airline):
    assert airline.report.warnings == [] and airline.report.stats["text fields checked (language QA)"] == 453

    def broken(d):
        instructions = d.tasks[0]["user_scenario"]["instructions"]
        instructions["known_info"] = "あなたは{PERSON_1}です。"
        instructions["reason_for_call"] = "You want to cancel reservation EHGLP3."
        d.tasks[12]["user_scenario"]["instructions"]["reason_for_call"] = "予約YAX4DRを変更したいです。"
    report = qa(airline, broken)
    assert [str(e) for e in report.errors] == [
        "tasks.json: [0].user_scenario.instructions.known_info: placeholder {PERSON_1} left in the text"]
    assert ("tasks.json: [0].user_scenario.instructions.reason_for_call: "
            "untranslated: You, cancel, reservation, to, want") in [str(w) for w in report.warnings]
    assert any("[12].user_scenario.instructions.reason_for_call: glossary: 'business' is not rendered" in str(w)
               for w in report.warnings), report.warnings
    assert {(w.check, w.severity) for w in report.warnings} == {("language", "warning")}
    [error] = report.errors
    assert (error.check, error.severity, error.file, error.path) == (
        "language", "error", "tasks.json", "[0].user_scenario.instructions.known_info")


def test_a_reviewer_corrects_a_translation_in_the_memory(tmp_path):
    import shutil

    from conftest import ROOT

    tm = tmp_path / "tm"
    shutil.copytree(ROOT / "data" / "tm", tm)
    path = tm / "airline.jsonl"
    lines = path.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"source": "You are {PERSON_1}."' in line)
    entry = json.loads(lines[index])
    entry.update(target="あなたは{PERSON_1}さんです。", status="reviewed")
    lines[index] = json.dumps(entry, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    result = jtau("localize", "airline", "--offline", "--tm", str(tm), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "あなたは金子 恵美さんです。" in (out / "airline" / "tasks.json").read_text()

    entry.update(target="あなたはお客様です。")                      # the placeholder lost in an edit
    lines[index] = json.dumps(entry, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n")
    result = jtau("localize", "airline", "--offline", "--tm", str(tm), "--out", str(out))
    assert result.returncode == 2
    assert f"airline.jsonl:{index + 1}: {entry['key']}" in result.stderr
    assert "placeholder {PERSON_1} missing" in result.stderr


@pytest.fixture(scope="module")
def banking_plan():
    """banking_knowledge as source, maps and the committed memory give it (tau2-bench 1.0.1 only)."""
    from conftest import banking_here
    from jtau.pipeline import Options, localize

    if not banking_here():
        pytest.skip("tau2-bench 1.0.1's banking_knowledge data not found (TAU2_DATA_DIR)")
    return localize("banking_knowledge", PROJECT, None, None, Options(dry_run=True))


def test_banking_review_page_holds_every_document_collapsed(banking_plan):
    """The knowledge base is most of banking's text (698 documents): each is on the page, in a
    collapsed section (title in both languages, content line by line), and the db's notes too."""
    import html

    from jtau.review import review_page

    result = banking_plan
    page = review_page(result)
    parser = Balance()
    parser.feed(page)
    assert parser.errors == [] and parser.stack == []
    documents = result.source.documents
    assert len(documents) == 698 and page.count("<details id=\"doc-") == 698
    assert {f"doc-{d['id']}" for d in documents.values()} <= parser.ids and "documents" in parser.ids
    assert "<details open" not in page  # collapsed: the page opens on its summary and tasks
    name, source = next(iter(documents.items()))
    english = next(line for line in source["content"].split("\n") if len(line) > 40)
    japanese = result.domain.documents[name]["content"].split("\n")[source["content"].split("\n").index(english)]
    assert f"<td>{html.escape(english)}</td><td>{html.escape(japanese)}" in page
    assert html.escape(result.domain.documents[name]["title"]) in page and "Database text" in page


def test_banking_changes_include_documents_and_db_notes(banking_plan):
    """What changed since a revision covers the documents' lines and the db's notes, not only
    tasks and prompts."""
    from conftest import ROOT
    from jtau.changes import files_on_disk, text_changes

    result = banking_plan
    old = files_on_disk(ROOT / "data" / "domains" / "banking_knowledge", result.outputs)
    assert text_changes(result, old) == []  # the committed files are what the memory gives
    name = next(iter(result.domain.documents))
    document = json.loads(old[name])
    lines = document["content"].split("\n")
    number = next(i for i, line in enumerate(lines, 1) if len(line) > 20)
    lines[number - 1] = "以前の訳。"
    document["content"] = "\n".join(lines)
    old[name] = json.dumps(document, ensure_ascii=False).encode()
    db = json.loads(old["db.json"])
    table = next(f.path[0] for f in result.text.fields if f.file == "db.json" and f.path[1:] == ("notes",))
    db[table]["notes"] = "以前の注記。"
    old["db.json"] = json.dumps(db, ensure_ascii=False).encode()
    changes = {change.where: change for change in text_changes(result, old)}
    assert set(changes) == {f"{name}: content:{number}", f"db.json {table}.notes"}
    assert changes[f"{name}: content:{number}"].old == "以前の訳。"
    assert changes[f"db.json {table}.notes"].new == result.domain.db[table]["notes"]
