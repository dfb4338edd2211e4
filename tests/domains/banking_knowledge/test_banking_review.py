"""What the bilingual review of banking_knowledge found, held on the committed memory
(`data/tm/banking_knowledge.jsonl`), the glossaries, the maps and the Japanese domain
(`data/domains/banking_knowledge/`): each test names the bad form that must not come back and the
decided form that must be there (docs/BANKING_LOCALE.md says why).  The tests that compare with
the English documents or run the tools need tau2-bench 1.0.1 and its data; the others run anywhere."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from conftest import ROOT, banking_here
from jtau.errors import InputError
from jtau.glossary import load_glossary
from jtau.translate import check

OUT = ROOT / "data" / "domains" / "banking_knowledge"
RUNTIME = ROOT / "src" / "jtau" / "runtime"
BANKING = ROOT / "src" / "jtau" / "domains" / "banking_knowledge"
tau3_only = pytest.mark.skipif(not banking_here(), reason="tau2-bench 1.0.1 with its data (TAU2_DATA_DIR) only")


def memory(domain: str = "banking_knowledge") -> list[dict]:
    """The memory's current entries (stale ones keep the Japanese of a source that is gone)."""
    lines = (ROOT / "data" / "tm" / f"{domain}.jsonl").read_text(encoding="utf-8").splitlines()
    return [e for e in map(json.loads, lines) if e["status"] != "stale"]


def glossary():
    return load_glossary(ROOT / "glossaries" / "ja.yaml").merged(
        load_glossary(ROOT / "glossaries" / "ja.banking_knowledge.yaml"))


def documents() -> dict[str, dict]:
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted((OUT / "documents").glob("*.json"))}


def english_documents() -> dict[str, dict]:
    from jtau.source.discover import default_domains_dir

    folder, _ = default_domains_dir()
    return {p.name: json.loads(p.read_text(encoding="utf-8"))
            for p in sorted((folder / "banking_knowledge" / "documents").glob("*.json"))}


def japanese_texts() -> dict[str, str]:
    """Every Japanese text of the domain a reader meets: documents, prompts, tasks, tool texts."""
    texts = {f"documents/{name}": json.dumps(doc, ensure_ascii=False) for name, doc in documents().items()}
    texts |= {str(p.relative_to(OUT)): p.read_text(encoding="utf-8") for p in sorted((OUT / "prompts").rglob("*.md"))}
    texts["tasks.json"] = (OUT / "tasks.json").read_text(encoding="utf-8")
    for name in ("messages.ja.yaml", "tools.ja.yaml"):
        texts[name] = (BANKING / name).read_text(encoding="utf-8")
    return texts


# --- 1. an identity check the English does not have ---------------------------------------------

def test_no_identity_check_is_added_where_the_english_has_none():
    entries = memory()
    by_source = {e["source"]: e["target"] for e in entries}
    # the reviewer's segments (business_platinum_rewards_card_012 line 11, green_rewards_card_010,
    # emerald_saver_008): a bonus credited after the bank checked the criteria, no identity check
    cited = ["Bonuses are credited to your account after verification that approval and qualifying spend "
             "requirements have been met.",
             "Bonuses are credited after verification that the qualifying criteria have been met.",
             "The application must be approved and the account must remain in good standing through the "
             "verification date.",
             "Timing questions: The bonus appears after verification and applies prospectively to interest "
             "accruals going forward."]
    for source in cited:
        assert "確認" in by_source[source] and "本人確認" not in by_source[source], source
    # siblings: a parenthesis adding an identity check to another check ("（本人確認を含む）",
    # "（本人確認など）", "（本人確認ではなく…）"), and "verification" of criteria, documents, items or
    # payments read as an identity check
    added = [e["key"] for e in entries if "(" not in e["source"]
             and re.search(r"（[^（）]*本人確認(を含む|など|ではなく)[^（）]*）", e["target"])]
    assert not added, added
    not_identity = re.compile(r"verification (that|date|needs|requests|and security)|streamline verification|"
                              r"requests verification|verification documents that|partner verification")
    wrong = [e["key"] for e in entries if not_identity.search(e["source"]) and "本人確認" in e["target"]]
    assert not wrong, wrong


# --- 2. a hint never fires inside a compound with another meaning --------------------------------

@pytest.mark.parametrize("text, term", [
    ("Audited or reviewed financial statements covering the full fiscal year.", "statement"),
    ("Management accounts if the fiscal year-end is older than six months.", "account"),
    ("Map internal chart of accounts to bank identifiers.", "account"),
    ("Map category-level emissions and offsets to designated ledger accounts.", "account"),
    ("Coordinate with your account team to adjust sweep rules.", "account"),
    ("Complete the partner verification steps and connect your Stripe account.", "account"),
    ("while a merchant finalizes a purchase or security deposit.", "deposit"),
    ("Maximum Provisional Credit Limits by Card Tier", "credit limit"),
    ("Adjust your sweep thresholds to balance liquidity needs with idle cash reduction.", "balance"),
    ("Get recommendations that balance schedule, policy, and overall trip value.", "balance"),
    ("Late payment fee: $25", "fee"),
    ("Annual membership fee is $95", "fee"),
    ("Confirm the card is linked to the same business entity", "business"),
])
def test_a_hint_does_not_fire_inside_a_compound_with_another_meaning(text, term):
    assert term not in glossary().hints_in(text)


def test_the_term_still_fires_where_it_is_the_term():
    hints = glossary().hints_in("Review your monthly statements and your checking account balance; "
                                "the late payment fee and the annual membership fee post to your account.")
    assert {"statement", "account", "balance", "checking account", "late fee", "annual fee"} <= set(hints)
    assert hints["late fee"] == "延滞料" and hints["annual fee"] == "年会費"


def test_a_not_in_phrase_without_its_term_is_refused(tmp_path):
    """A `not_in` phrase that holds no form of its term never applies: the glossary says so at load."""
    path = tmp_path / "ja.yaml"
    path.write_text("terms:\n  statement: {ja: 明細, mode: hint, not_in: [financial statemnt]}\n", encoding="utf-8")
    with pytest.raises(InputError, match="not_in 'financial statemnt' holds no form of 'statement'"):
        load_glossary(path)


def test_the_compounds_read_in_their_own_sense_in_the_memory():
    entries = memory()
    for e in entries:
        source, target = e["source"], e["target"]
        if re.search(r"financial statements", source, re.I):
            assert "財務諸表" in target and "明細" not in target, e["key"]
        if re.search(r"management accounts|ledger accounts|Map accounts for", source, re.I):
            assert "口座" not in target, e["key"]
        if "chart of accounts" in source and "bank account" not in source:
            assert "勘定科目表" in target and "口座" not in target, e["key"]
        if re.search(r"late payment fee", source, re.I):
            assert "延滞料" in target and "支払い遅延の手数料" not in target, e["key"]
    # a hint's rendering glossed in beside the right word, to satisfy the check
    forced = ("（支払い遅延の手数料）", "（会員手数料）", "（利用限度額とは", "（カードの利用限度額とは",
              "（決算書の明細）", "（ビジネス）", "（ビジネス顧客）", "（手数料）", "（予算残高を含む）")
    assert not [e["key"] for e in entries if any(form in e["target"] for form in forced)]


# --- 3. beneficiary instructions: the payee's payment details ------------------------------------

def test_beneficiary_instructions_are_the_payees_payment_details():
    found = [e for e in memory() if re.search(r"beneficiary instructions", e["source"], re.I)]
    assert len(found) >= 2  # platinum_reserve_account_007 line 8, gold_saver_account_006
    for e in found:
        assert "振込先情報" in e["target"] and "受取人への" not in e["target"], e["key"]
    assert not [e["key"] for e in memory() if re.search("受取人への(詳細な)?指示", e["target"])]


# --- 4. whole dollars are 100円単位 -------------------------------------------------------------

def test_the_tool_texts_say_that_amounts_go_by_100_yen():
    tools = yaml.safe_load((BANKING / "tools.ja.yaml").read_text(encoding="utf-8"))["tools"]
    assert "100円単位" in tools["submit_credit_limit_increase_request_7392"]["args"]["requested_increase_amount"]
    assert "100円単位" in tools["request_temporary_debit_card_limit_increase_8374"]["args"]["new_limit"]
    table = yaml.safe_load((BANKING / "messages.ja.yaml").read_text(encoding="utf-8"))
    whole = table["messages"]["Error: Invalid requested_increase_amount. Must be a whole number of dollars."]
    assert "100円単位" in whole and "円単位の整数" not in whole
    assert "100円単位" in table["messages"]["Error: new_limit must be an integer, got '{new_limit}'."]


@tau3_only
def test_an_amount_that_is_no_multiple_of_100_yen_is_refused_in_those_words():
    """250,050円 is 2500.5 dollars behind the boundary: refused, and the message says what is
    required and shows the amount in yen; 250,000円 is accepted."""
    from tau2.data_model.message import ToolCall

    from jtau.domains.banking_knowledge.environment import BankingJa
    from jtau.maps import load_maps
    from jtau.rules import load_rules

    env = BankingJa(OUT, load_maps(ROOT / "entity_maps"), load_rules("banking_knowledge")).get_environment(
        retrieval_variant="no_knowledge")

    def call(name: str, arguments: dict) -> str:
        return env.get_response(ToolCall(id="1", name=name, arguments=arguments)).content

    def discoverable(tool: str, **arguments) -> str:
        return call("call_discoverable_agent_tool", {"agent_tool_name": tool, "arguments": json.dumps(arguments)})

    for tool in ("submit_credit_limit_increase_request_7392", "request_temporary_debit_card_limit_increase_8374"):
        call("unlock_discoverable_agent_tool", {"agent_tool_name": tool})
    account = {"credit_card_account_id": "cc_lj82d4f1a9_silver", "user_id": "lj82d4f1a9"}
    refused = discoverable("submit_credit_limit_increase_request_7392", **account, requested_increase_amount=250050)
    assert refused == "エラー：requested_increase_amount が無効です。100円単位の金額を指定してください。"
    accepted = discoverable("submit_credit_limit_increase_request_7392", **account, requested_increase_amount=250000)
    assert "250,000円" in accepted and "エラー" not in accepted
    card = next(iter(env.tools.db.debit_cards.data))
    refused = discoverable("request_temporary_debit_card_limit_increase_8374", card_id=card, limit_type="atm",
                           new_limit=250050)
    assert refused == "エラー：new_limit は100円単位の金額でなければなりません（指定された値: 250,050円）。"


# --- 5. no My Number -----------------------------------------------------------------------------

def test_the_ssn_is_the_id_documents_number_and_never_my_number():
    assert glossary().terms["SSN"].ja == "本人確認書類の番号"
    entries = memory()
    for e in entries:
        assert "マイナンバー" not in e["target"] and "個人番号" not in e["target"], e["key"]
        if re.search(r"\bSSN\b|Social Security number", e["source"]):
            assert "本人確認書類の番号" in e["target"], e["key"]
    assert sum("本人確認書類の番号" in e["target"] for e in entries) >= 6
    for where, text in japanese_texts().items():
        assert "マイナンバー" not in text and "個人番号" not in text, where
    docs = documents()
    assert "本人確認書類の番号の下4桁" in docs["doc_bank_accounts_bank_accounts_(general)_037.json"]["content"]
    assert "本人確認書類の番号の下4桁" in docs["doc_bank_accounts_bank_accounts_(general)_041.json"]["content"]
    for name in ("doc_bank_accounts_bank_accounts_(general)_047.json",
                 "doc_bank_accounts_bank_accounts_(general)_048.json"):
        assert "主たる署名権者の本人確認書類の番号" in docs[name]["content"], name


@tau3_only
def test_the_ssn_decision_changes_no_data_and_no_grading():
    """No db field, task row or golden action holds an SSN: only the text names it."""
    from jtau.source.discover import default_domains_dir

    folder, _ = default_domains_dir()
    for name in ("db.json", "tasks.json"):
        assert not re.search(r"ssn|social_security", (folder / "banking_knowledge" / name).read_text(), re.I), name


# --- 6. お客さま, one label, ACH glossed, 0120 numbers --------------------------------------------

@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "banking_knowledge"])
def test_the_customer_is_okyakusama_in_hiragana_everywhere(domain):
    assert ("お客様", "お客さま") in glossary().avoid
    assert not [e["key"] for e in memory(domain) if "お客様" in e["target"]]
    folder = ROOT / "data" / "domains" / domain
    assert not [str(p) for p in folder.rglob("*") if p.is_file() and "お客様" in p.read_text(encoding="utf-8")]
    for path in [*RUNTIME.glob("*.ja.*"), *BANKING.parent.glob("*/*.ja.*")]:
        assert "お客様" not in path.read_text(encoding="utf-8"), path
    for path in RUNTIME.glob("*.md"):
        assert "お客様" not in path.read_text(encoding="utf-8"), path


def test_the_prompts_say_okyakusama():
    prompts = "".join(p.read_text(encoding="utf-8") for p in (OUT / "prompts").rglob("*.md"))
    assert "お客さま" in prompts and "お客様" not in prompts


def test_a_translation_writing_the_avoided_spelling_is_refused():
    found = check.problems("Help the customer.", "お客様を手伝ってください。", {}, avoid=glossary().avoid)
    assert found == ["glossary: write 'お客さま', not 'お客様'"]
    assert check.problems("Help the customer.", "お客さまを手伝ってください。", {}, avoid=glossary().avoid) == []


@pytest.mark.parametrize("label, japanese", [("Your character", "あなたの人物像"), ("Your goal", "あなたの目的"),
                                             ("Opening", "最初の発言"), ("End conversation", "会話の終了")])
def test_a_label_of_the_user_instructions_has_one_rendering(label, japanese):
    found = [e for e in memory() if e["source"].lstrip().startswith(f"**{label}:**")]
    assert len(found) >= 10
    forms = {re.match(r"\s*\*\*([^*]+?)：\*\*", e["target"])[1] for e in found}
    assert forms == {japanese}


def test_ach_is_glossed_at_its_first_mention_in_each_document_and_task():
    gloss = "米国の自動決済ネットワーク"
    mentioned = 0
    for name, doc in documents().items():
        content = doc["content"]
        if (at := content.find("ACH")) < 0:
            continue
        mentioned += 1
        line = content[content.rfind("\n", 0, at) + 1:].split("\n", 1)[0]
        assert gloss in line, (name, line)
    assert mentioned == 17
    tasks = json.loads((OUT / "tasks.json").read_text(encoding="utf-8"))
    texts = [t["user_scenario"]["instructions"] for t in tasks
             if "ACH" in json.dumps(t["user_scenario"], ensure_ascii=False)]
    assert len(texts) == 2
    for text in texts:
        at = text.find("ACH")
        assert gloss in text[text.rfind("\n", 0, at) + 1:].split("\n", 1)[0]


def test_the_banks_toll_free_lines_are_0120_numbers_through_the_maps():
    phones = yaml.safe_load((ROOT / "entity_maps" / "banking.yaml").read_text(encoding="utf-8"))["phones"]
    assert phones["1-800-RHO-BANK"] == "0120-000-610" and phones["1-800-RHO-ACCT"] == "0120-000-620"
    for where, text in japanese_texts().items():
        assert not re.search(r"1-8\d\d-", text), where
    assert not [e["key"] for e in memory() if "1-800" in e["target"]]


@tau3_only
def test_every_toll_free_mention_of_the_english_is_a_0120_number_in_japanese():
    japanese, count = documents(), 0
    for name, doc in english_documents().items():
        for english, number in (("1-800-RHO-BANK", "0120-000-610"), ("1-800-RHO-ACCT", "0120-000-620")):
            n = doc["content"].count(english)
            count += n
            assert japanese[name]["content"].count(number) == n, name
    assert count == 14
