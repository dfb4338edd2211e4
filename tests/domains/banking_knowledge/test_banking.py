"""banking_knowledge on the real tau2-bench 1.0.1 data: the committed J-tau domain replays, the
locale boundary is its own inverse on the whole db, and bad input stops with the file and path
(exit 2, nothing written).  Skipped where tau2-bench 1.0.1 and its data are not installed."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from conftest import ROOT, banking_here, jtau

pytestmark = pytest.mark.skipif(not banking_here(), reason="tau2-bench 1.0.1 with its data (TAU2_DATA_DIR) only")
OUT = ROOT / "data" / "domains" / "banking_knowledge"


@pytest.fixture
def source(tmp_path):
    """A copy of the banking_knowledge source, to break on purpose."""
    from jtau.source.discover import default_domains_dir

    folder, _ = default_domains_dir()
    copy = tmp_path / "domains" / "banking_knowledge"
    shutil.copytree(folder / "banking_knowledge", copy)
    return copy


def test_golden_actions_commute_on_tasks_of_every_kind():
    """A discoverable write with JSON-string arguments (task_026), a customer's own call
    (task_003), an id hashed from localized arguments (task_050), a fee keyed by product (task_061)."""
    result = jtau("verify", "banking_knowledge", "--task", "task_003", "--task", "task_026", "--task", "task_050",
                  "--task", "task_061")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    assert "banking_knowledge: 4/4 tasks commute" in result.stdout


def test_the_boundary_is_its_own_inverse_on_the_whole_db():
    """J-tau's db in the source's form and back is J-tau's db, value for value; in the source's
    form it holds dollars, English product names and MM/DD/YYYY dates."""
    from tau2.domains.banking_knowledge.data_model import TransactionalDB

    from jtau.domains.banking_knowledge.boundary import Boundary
    from jtau.maps import load_maps
    from jtau.rules import load_rules

    boundary = Boundary(load_maps(ROOT / "entity_maps"), load_rules("banking_knowledge"))
    db = TransactionalDB.load(str(OUT / "db.json"))
    before = db.model_dump()
    boundary.db_to_source(db)
    view = db.model_dump()
    card = view["credit_card_accounts"]["data"]["cc_lj82d4f1a9_silver"]
    assert card["current_balance"] == "$842.15" and card["card_type"] == "Silver Rewards Card"
    assert card["date_of_account_open"] == "05/20/2024"
    boundary.db_to_ja(db)
    assert db.model_dump() == before


def test_a_document_citing_a_tool_the_toolkit_lacks_is_refused(source, tmp_path):
    path = source / "documents" / "doc_bank_accounts_bank_accounts_(general)_001.json"
    document = json.loads(path.read_text())
    document["content"] = document["content"].replace("open_bank_account_4821", "open_bank_account_9999")
    path.write_text(json.dumps(document))
    result = jtau("localize", "banking_knowledge", "--source", str(source.parent), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "not in the toolkit" in result.stderr
    assert "doc_bank_accounts_bank_accounts_(general)_001.json: content: 'open_bank_account_9999'" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_date_in_a_format_the_rules_do_not_name_is_refused(source, tmp_path):
    db = json.loads((source / "db.json").read_text())
    db["users"]["data"]["123"]["date_of_birth"] = "March 15, 1992"
    (source / "db.json").write_text(json.dumps(db))
    result = jtau("localize", "banking_knowledge", "--source", str(source.parent), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "db.json: users.data.123.date_of_birth: date_mdy 'March 15, 1992'" in result.stderr
    assert not (tmp_path / "out").exists()


def test_an_amount_not_exact_in_yen_is_refused(source, tmp_path):
    db = json.loads((source / "db.json").read_text())
    record = next(iter(db["credit_card_transaction_history"]["data"].values()))
    record["transaction_amount"] = "$1.005"
    (source / "db.json").write_text(json.dumps(db))
    result = jtau("localize", "banking_knowledge", "--source", str(source.parent), "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and "'$1.005'" in result.stderr and "not a whole amount" in result.stderr


def test_a_product_map_that_is_not_one_to_one_is_refused(project):
    path = project / "entity_maps" / "catalog.yaml"
    text = path.read_text()
    assert "Silver Rewards Card: " in text
    path.write_text(text.replace("Silver Rewards Card: シルバーリワードカード",
                                 "Silver Rewards Card: ゴールドリワードカード"))
    result = jtau("maps", "check", root=project)
    assert result.returncode == 2
    assert "banking_products: 'Silver Rewards Card' and 'Gold Rewards Card' both map to" in result.stderr \
        or "banking_products: 'Gold Rewards Card' and 'Silver Rewards Card' both map to" in result.stderr


def test_annotators_notes_stay_english_and_name_the_j_tau_task(tmp_path):
    """description.notes is a kind the rules keep in the source language: no translator is asked
    for it (tm export lists none), and the committed notes are the English with J-tau's people
    and yen in them."""
    import glob

    import yaml

    from jtau.source.discover import default_domains_dir

    exported = tmp_path / "missing.jsonl"
    result = jtau("tm", "export", "banking_knowledge", "-o", str(exported))
    assert result.returncode in (0, 1), result.stderr
    kinds = {json.loads(line)["kind"] for line in exported.read_text(encoding="utf-8").splitlines()} \
        if exported.exists() else set()
    assert "note" not in kinds
    folder, _ = default_domains_dir()
    source = {t["id"]: t for t in (json.loads(open(p, encoding="utf-8").read())
                                   for p in glob.glob(str(folder / "banking_knowledge" / "tasks" / "task_*.json")))}
    output = {t["id"]: t for t in json.loads((OUT / "tasks.json").read_text(encoding="utf-8"))}
    people = yaml.safe_load((ROOT / "entity_maps" / "banking.yaml").read_text(encoding="utf-8"))["people"]
    noted = [i for i, t in source.items() if (t.get("description") or {}).get("notes")]
    assert len(noted) > 70
    named = 0
    for task_id in noted:
        english, kept = source[task_id]["description"]["notes"], output[task_id]["description"]["notes"]
        assert re.search(r"[A-Za-z]+ [A-Za-z]+ [A-Za-z]+", kept), task_id  # still English prose
        for name, entry in people.items():
            whole = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")  # not Marcus Chen-Ramirez
            if whole.search(english):
                assert not whole.search(kept) and entry["name"] in kept, (task_id, name)
                named += 1
    assert named > 10


def test_validate_reads_the_knowledge_base_lines_and_names_an_english_one(tmp_path):
    """A document line left English (here the first translated document's title put back) is a
    QA warning naming the document and the line; the committed translation of it is not."""
    from jtau.source.discover import default_domains_dir

    folder, _ = default_domains_dir()
    out = tmp_path / "domains"
    shutil.copytree(OUT, out / "banking_knowledge")
    name = "doc_bank_accounts_bank_accounts_(general)_001.json"
    english = json.loads((folder / "banking_knowledge" / "documents" / name).read_text(encoding="utf-8"))
    path = out / "banking_knowledge" / "documents" / name
    document = json.loads(path.read_text(encoding="utf-8"))
    before = jtau("validate", "banking_knowledge", "--out", str(out))
    assert f"documents/{name}: title:1" not in before.stdout
    document["title"] = english["title"]
    path.write_text(json.dumps(document, ensure_ascii=False, indent=4) + "\n", encoding="utf-8")
    after = jtau("validate", "banking_knowledge", "--out", str(out))
    assert after.returncode == 0, after.stderr
    assert f"documents/{name}: title:1: untranslated" in after.stdout.replace("\n  ", " ")


def test_validate_refuses_a_document_that_lost_a_tool_name(tmp_path):
    """The agent calls a tool by the name its document cites: a J-tau document whose
    `open_bank_account_4821` went missing (or became another name) is an error naming it."""
    out = tmp_path / "domains"
    shutil.copytree(OUT, out / "banking_knowledge")
    name = "doc_bank_accounts_bank_accounts_(general)_001.json"
    path = out / "banking_knowledge" / "documents" / name
    document = json.loads(path.read_text(encoding="utf-8"))
    assert "open_bank_account_4821を" in document["content"]  # glued to the Japanese, and still found
    document["content"] = document["content"].replace("open_bank_account_4821", "open_bank_account_4820")
    path.write_text(json.dumps(document, ensure_ascii=False, indent=4) + "\n", encoding="utf-8")
    result = jtau("validate", "banking_knowledge", "--out", str(out))
    assert result.returncode == 1
    assert (f"documents/{name}: content: tool names ['open_bank_account_4821'] missing, "
            "['open_bank_account_4820'] not in the source") in result.stderr.replace("\n  ", " ")


def test_a_line_of_amounts_only_is_in_yen():
    """A list item that is only an amount ("- $4.00") is converted like any text."""
    from jtau.source.discover import default_domains_dir

    folder, _ = default_domains_dir()
    name = "doc_business_checking_accounts_hunter_green_009.json"
    english = json.loads((folder / "banking_knowledge" / "documents" / name).read_text(encoding="utf-8"))["content"]
    japanese = json.loads((OUT / "documents" / name).read_text(encoding="utf-8"))["content"]
    assert "  - $4.00" in english.split("\n")
    assert "  - 400円" in japanese.split("\n") and "$" not in japanese


def test_the_japanese_knowledge_base_is_found_by_its_japanese_titles():
    """On J-tau's 698 documents, J-tau's BM25 finds most documents by their Japanese title among
    its first 10; tau2's `.split()` BM25 over the same Japanese documents finds almost none."""
    from rank_bm25 import BM25Okapi

    from jtau.retrieval import bm25

    documents = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((OUT / "documents").glob("*.json"))]
    assert len(documents) == 698
    index = bm25.build_index(documents)
    found = sum(doc["id"] in [i for i, _ in bm25.search(index, doc["title"], 10)] for doc in documents)
    english = BM25Okapi([doc["content"].lower().split() for doc in documents])
    ids = [doc["id"] for doc in documents]
    split_found = 0
    for doc in documents:
        ranked = bm25.rank(english.get_scores(doc["title"].lower().split()), ids, 10)
        split_found += any(i == doc["id"] and score > 0 for i, score in ranked)
    assert found / len(documents) > 0.55 and split_found / len(documents) < 0.1, (found, split_found)
