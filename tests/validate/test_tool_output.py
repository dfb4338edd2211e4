"""What an agent and a customer read of a tool's answer (validate/tool_output.py, runtime/readings.py,
runtime/tool_results.ja.yaml): the comparison catches each kind of defect planted in a real answer,
reads tau2's own answers as commuting with themselves, and every golden call of every arm
commutes; every text tau2's tools return reads in Japanese with its values."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
from decimal import Decimal

import pytest

from conftest import PROJECT, ROOT
from jtau.arms import ARMS
from jtau.validate.tool_output import Reader, Side

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
MONEY = {"amount", "current_balance", "credit_limit", "price", "prices.*"}
WORDS = {"account_id", "amount", "current_balance", "status", "type", "OPEN", "posted"}

# a banking answer as tau2 writes it, and as J-tau's arms should (its record amounts in dollars:
# `amount` a number, `current_balance` a $ text)
SOURCE = """Bank account transactions retrieved successfully.

Executed: get_bank_account_transactions_9173
Found 2 record(s) in 'bank_account_transaction_history':

1. Record ID: btxn_1
   date: 11/20/2025
   description: ATM WITHDRAWAL - US BANK #7890 OAK PARK IL
   amount: -200.0
   status: posted

2. Record ID: btxn_2
   current_balance: $1,389.98
   status: posted"""
RIGHT = {
    "ja": """銀行口座の取引を取得しました。

実行: get_bank_account_transactions_9173
'bank_account_transaction_history' に 2 件の記録が見つかりました:

1. 記録ID: btxn_1
   date: 2025/11/20
   description: ATM出金 - ゆうちょ銀行 #7890 杉並
   amount: -20000
   status: posted

2. 記録ID: btxn_2
   current_balance: 138,998円
   status: posted""",
    "ja-entities": """Bank account transactions retrieved successfully.

Executed: get_bank_account_transactions_9173
Found 2 record(s) in 'bank_account_transaction_history':

1. Record ID: btxn_1
   date: 2025/11/20
   description: ATM出金 - ゆうちょ銀行 #7890 杉並
   amount: -20000
   status: posted

2. Record ID: btxn_2
   current_balance: ¥138,998
   status: posted""",
}
SOURCE_ENTITIES = {"ATM WITHDRAWAL - US BANK #7890 OAK PARK IL"}
JTAU_ENTITIES = {"ATM出金 - ゆうちょ銀行 #7890 杉並"}


def reader(arm: str) -> Reader:
    localized = JTAU_ENTITIES if ARMS[arm].localizes_entities else SOURCE_ENTITIES
    return Reader(ARMS[arm], Decimal(100), MONEY, WORDS, Side(SOURCE_ENTITIES), Side(localized))


@pytest.mark.parametrize("arm", ["ja", "ja-entities"])
def test_a_right_answer_has_no_finding(arm):
    assert reader(arm).compare(SOURCE, RIGHT[arm]) == []


def test_tau2s_own_answer_commutes_with_itself():
    assert reader("en").compare(SOURCE, SOURCE) == []


# each defect of the review that found them, planted in the right answer: (arm, old, new, kind)
PLANTED = [
    ("ja", "amount: -20000", "amount: -200", "money"),                          # a dollar amount not converted
    ("ja", "138,998円", "100円,389.98", "notation"),                          # cut at the thousands comma
    ("ja", "138,998円", "$1,389.98", "notation"),                             # a dollar amount in a yen arm
    ("ja", "138,998円", "¥138,998", "notation"),                              # yen as English writes it, in Japanese
    ("ja-entities", "¥138,998", "138,998円", "notation"),                     # yen as Japanese writes it, in English
    ("ja", "2 件の記録", "3 件の記録", "number"),                             # another count
    ("ja", "2025/11/20", "2025/11/21", "number"),                            # another date
    ("ja", "   status: posted\n\n2.", "   status: posted\nShipping Method: Expedited\n\n2.", "language"),  # a label
    ("ja", "銀行口座の取引を取得しました。", "Transactions retrieved successfully.", "language"),  # a sentence
    ("ja-entities", "Record ID: btxn_2", "記録ID: btxn_2", "language"),       # Japanese in English text
]


@pytest.mark.parametrize("arm,old,new,kind", PLANTED)
def test_a_planted_defect_comes_back_as_its_kind(arm, old, new, kind):
    assert old in RIGHT[arm]
    findings = reader(arm).compare(SOURCE, RIGHT[arm].replace(old, new, 1))
    assert kind in {f.kind for f in findings}, findings


def test_a_dollar_arm_with_yen_is_a_notation_defect():
    assert {f.kind for f in reader("ja-text").compare("Credit Amount: $20.00", "クレジット金額: 2,000円")} \
        >= {"notation", "money"}
    assert reader("ja-text").compare("Credit Amount: $20.00", "クレジット金額: $20.00") == []


def test_an_example_figure_beside_its_amount_is_that_amount():
    """"(e.g., 2500 for $2,500)" and 「例：250,000円なら 250000」 state one amount twice, x100."""
    source = "requested_increase_amount: integer - The dollar amount (e.g., 2500 for $2,500)"
    assert reader("ja").compare(
        source, "requested_increase_amount: integer - 金額（円、100円単位。例：250,000円なら 250000）") == []
    findings = reader("ja").compare(source, "requested_increase_amount: integer - 金額（円。例：$2,500なら 2500）")
    assert "notation" in {f.kind for f in findings}


def test_identifiers_are_no_numbers_and_numbers_are_read_as_values():
    """A run of word characters with a digit and a letter or "_" is an identifier (read as no
    number), wherever the digit is; dates and thousands are values."""
    from jtau.validate.tool_output import numbers

    text = "HAT243 txn_9f2c 9f _7 a_b 1x2 reservation ZFA04Y 2024-05-15 05/15/2024 1,200 3.5 07"
    assert numbers(text) == {"2024-05-15": 2, "1200": 1, "3.5": 1, "7": 1}
    assert numbers("x" * 5000 + "1 " + "y9" * 2000) == {}  # however long, a run is one identifier


SKIPPABLE = ["DOLLAR", "YEN_SUFFIX", "YEN_SIGN", "HALF_CONVERTED", "DATE", "UNIT", "THOUSANDS"]


@pytest.mark.parametrize("name", SKIPPABLE)
def test_a_text_without_what_a_pattern_needs_is_not_searched_and_has_no_match(name):
    """The reader skips a pattern where the text lacks every one of its `NEEDS` (most answers hold
    no amount): every match, in texts Hypothesis draws from the pattern itself, holds one."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from jtau.validate import tool_output

    pattern = getattr(tool_output, name)
    needles = tool_output.NEEDS[pattern]
    assert set(tool_output.NEEDS) == {getattr(tool_output, n) for n in SKIPPABLE}

    @settings(max_examples=200, derandomize=True, database=None, deadline=None)
    @given(st.from_regex(pattern))
    def holds_a_needle(text):
        for match in pattern.finditer(text):
            assert any(needle in match[0] for needle in needles), match[0]

    holds_a_needle()


# --- the real tools, end to end ----------------------------------------------------------------

@pytest.mark.xdist_group("verify_all")  # one worker runs the shared `jtau verify all`
def test_every_golden_call_of_j_tau_reads_as_the_sources(verify_all):
    result, by_domain = verify_all
    assert by_domain, result.stderr
    for domain, checks in by_domain.items():
        readings = [(c["task"], r) for c in checks for r in c["readings"]]
        assert readings == [], (domain, readings[:3])
        assert all("readings" in c for c in checks)
    # and every read tool of the rules over every record, before any task
    reads = {domain: checks[0]["actions"] for domain, checks in by_domain.items()}
    assert reads["airline"] == 500 + 2000 and reads["retail"] == 500 + 1000 + 50 + 500, reads
    assert reads["telecom"] == 4 * 3 + 9  # customers (by id, by phone, their bills), lines


@pytest.mark.xdist_group("arms")  # the arms are built once, in the worker that tests them
@pytest.mark.parametrize("arm", ["ja-text", "ja-entities"])
def test_every_golden_call_of_a_mixed_arm_reads_as_the_sources(arm, arms_cache):
    from jtau.runtime.verify import verify

    reads = arm == "ja-text"  # (CI reads every record of every arm: jtau verify all --arm all)
    checks, _ = verify("airline", PROJECT, ROOT / "data" / "domains" / "airline", rewards=False, arm=arm,
                       tasks=AIRLINE_CALLS, reads=reads)
    assert len(checks) == len(AIRLINE_CALLS) + 1 and checks[0].actions == (500 + 2000 if reads else 0)
    assert [(c.task, str(r)) for c in checks for r in c.readings] == []


# airline tasks that call every one of its tools between them (CI verifies every task of every arm)
AIRLINE_CALLS = {"1", "7", "8", "12", "13", "17", "44"}


def test_a_message_nobody_translated_is_named_with_both_texts(monkeypatch):
    """Airline task 13 transfers to a human: with the table's "Transfer successful" taken out,
    verify names the call, the finding and both answers."""
    from jtau.runtime import messages
    from jtau.runtime.verify import as_json, verify

    data = messages._data("tool_results")
    del data["messages"]["Transfer successful"]
    messages.table.cache_clear()
    monkeypatch.setattr(messages, "_data", lambda name, data=data, real=messages._data: data
                        if name == "tool_results" else real(name))
    try:
        checks, _ = verify("airline", PROJECT, ROOT / "data" / "domains" / "airline", rewards=False, tasks={"13"},
                           reads=False)
    finally:
        messages.table.cache_clear()
    [task] = [c for c in as_json(checks) if c["task"] == "13"]
    [reading] = task["readings"]
    assert reading["tool"] == "transfer_to_human_agents" and reading["kind"] == "language"
    assert reading["source"] == reading["arm"] == "Transfer successful"
    assert "tool output language: English in a Japanese answer: 'Transfer successful'" in " ".join(task["problems"])
    assert not task["ok"]


# --- every returned text of tau2's tool code reads in Japanese ----------------------------------

MODULES = ("tau2.domains.airline.tools", "tau2.domains.retail.tools", "tau2.domains.telecom.tools",
           "tau2.domains.telecom.user_tools")


def returned_texts() -> dict[str, str]:
    """Every text a tool of airline, retail and telecom returns whole or in a returned object's
    "message" ({expression} where the code writes a value), and the status bar's indicators;
    not the texts a tool raises (tool_errors) nor the pieces of a text the code assembles."""
    out = {}

    def text(node) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                           for v in node.values)
        return None

    for module in MODULES:
        tree = ast.parse(inspect.getsource(importlib.import_module(module)))
        for node in ast.walk(tree):
            candidates = []
            if isinstance(node, ast.Return) and node.value is not None:
                candidates.append(node.value)
            if isinstance(node, ast.Dict):
                candidates += [v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)
                               and k.value == "message"]
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "append" and node.args:
                candidates.append(node.args[0])  # the status bar's indicators
            for candidate in candidates:
                value = text(candidate)
                if value and re.search(r"[A-Za-z]{3}", re.sub(r"\{[^}]*\}", "", value)):
                    out[value] = module
    return out


# texts domains/telecom/environment.py writes itself in the arm's language and money (they name an amount)
WRITTEN_BY_JTAU = {"Line suspended successfully. $5/month holding fee will apply.",
                   "Successfully added {gb_amount} GB of data for line {line_id} for ${charge_amount}",
                   "You have a payment request for bill {payment_request.bill_id} of {payment_request.amount_due} USD.",
                   "Payment of {payment_request.amount_due} USD has been made for bill {payment_request.bill_id}."}
# texts no agent or customer reads as such: code values, pieces joined into what the table reads
NOT_READ = WRITTEN_BY_JTAU | {"2024-05-15T15:00:00", "{id_name}_{self.id_counter[id_type]}", "pending",
            "{status_update}\nStatus Bar: {self._check_status_bar()}",
            "{apn_status}\nStatus Bar: {self._check_status_bar()}",
            "{result}{message}\nStatus Bar: {self._check_status_bar()}", "Very Poor", "Poor", "Fair", "Good",
            "Excellent", "Unknown", "No Connection"}


def test_every_text_tau2s_tools_return_reads_in_japanese_with_its_values():
    from jtau.runtime.messages import render, table

    texts = returned_texts()
    assert len(texts) >= 60
    results = table("tool_results")
    for english, module in texts.items():
        if english in NOT_READ:
            continue
        sample = re.sub(r"\{[^}]+\}", "X_1", english).replace("{", "").replace("}", "")
        japanese = render(results, sample)
        assert JAPANESE.search(japanese), (module, english)
        assert japanese.count("X_1") == sample.count("X_1"), (module, english, japanese)


def test_the_phones_screen_reads_in_japanese_and_keeps_what_the_tasks_quote():
    from jtau.runtime.messages import render, table

    screen = ("Data Roaming is now ON.\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 📡 Connected to HomeNet "
              "| 🔋 80%")
    assert render(table("tool_results"), screen) == (
        "データローミングをONにしました。\n"
        "ステータスバー: 📶⁴ Excellent | 5G | 📱 モバイルデータ有効 | 📡 HomeNetに接続済み | 🔋 80%")
    one_line = "Preferred Network Mode set to: 4g_5g_preferred\nStatus Bar: 📵 No Signal | 🔋 80%"
    assert render(table("tool_results"), one_line).splitlines()[0] == (
        "優先するネットワークモードを 4g_5g_preferred に設定しました。")


def test_a_certificate_names_its_amount_as_the_arm_writes_money():
    from jtau.maps import project_maps
    from jtau.runtime.messages import render, table
    from jtau.runtime.overlay import arm_money

    maps = project_maps(PROJECT)
    text = "Certificate certificate_1 added to user mia_li_3668 with amount 10000."
    assert render(table("tool_results"), text, amount=arm_money(ARMS["ja"], maps)) == \
        "ユーザーmia_li_3668にトラベル証明書certificate_1（額面10,000円）を追加しました。"
    assert "（額面$100）" in render(table("tool_results"), text.replace("10000", "100"),
                                   amount=arm_money(ARMS["ja-text"], maps))


def test_readings_of_a_json_answer_name_amounts_by_their_field():
    source = json.dumps({"flights": [{"price": 166}], "prices": {"economy": 114}})
    right = json.dumps({"flights": [{"price": 16600}], "prices": {"economy": 11400}})
    assert reader("ja").compare(source, right) == []
    wrong = json.dumps({"flights": [{"price": 166}], "prices": {"economy": 11400}})
    assert {f.kind for f in reader("ja").compare(source, wrong)} == {"money"}


# the banking tasks whose tool output the review found wrong (money in dollars or cut at a comma,
# English labels and results, a field that took in the lines after it, the customer's tools)
BANKING_FOUND = {"task_015", "task_017", "task_031", "task_032", "task_036", "task_043", "task_050",
                 "task_051", "task_052", "task_072", "task_077", "task_085", "task_089"}


@pytest.mark.xdist_group("arms")
@pytest.mark.parametrize("arm", ["ja", "ja-entities", "ja-text"])
def test_banking_tool_output_reads_as_the_sources_where_the_review_found_it_wrong(arm, arms_cache):
    from conftest import banking_here

    if not banking_here():
        pytest.skip("banking_knowledge is tau2-bench 1.0.1's (26.3 has no such domain)")
    from jtau.runtime.verify import verify

    checks, _ = verify("banking_knowledge", PROJECT, ROOT / "data" / "domains" / "banking_knowledge", rewards=False,
                       tasks=BANKING_FOUND, arm=arm, reads=arm == "ja")
    assert len(checks) == len(BANKING_FOUND) + 1
    assert [(c.task, str(r)) for c in checks for r in c.readings] == []


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_read_sweep_names_a_record_whose_answer_is_wrong(monkeypatch, jobs):
    """A retail product whose Japanese answer lost an amount: the sweep over every record names
    the tool and the record, before any task; the same when two workers share the calls."""
    from jtau.runtime import readings
    from jtau.runtime.verify import verify

    real = readings.sweep

    def sweep(reader, rules, source_env, arm_env, source_db, arm_db, part):
        answer = arm_env.get_response

        def wrong(message):
            response = answer(message)
            if message.name == "get_product_details" and message.arguments.get("product_id") == "8940227892":
                response.content = response.content.replace('"price": ', '"price": 1', 1)
            return response

        monkeypatch.setattr(arm_env, "get_response", wrong)
        return real(reader, rules, source_env, arm_env, source_db, arm_db, part)

    monkeypatch.setattr("jtau.runtime.verify.sweep", sweep)
    checks, _ = verify("retail", PROJECT, ROOT / "data" / "domains" / "retail", rewards=False, tasks={"0"},
                       jobs=jobs)
    [reading] = checks[0].readings
    assert reading.tool == "get_product_details(product_id='8940227892')" and reading.finding.kind == "money"
    assert not checks[0].ok
    assert str(reading).startswith("get_product_details(product_id='8940227892'): tool output money")


def test_every_screen_j_taus_manual_quotes_is_one_the_phone_shows():
    """The manual tells the agent what the phone shows (「✈️ 機内モード」, 「データセーバーはONです」): each
    Japanese quote of it is a text of the phone's table, as the customer reads it."""
    from jtau.runtime.messages import _data

    table = _data("tool_results")
    texts = [*table["messages"].values(), *table["field_values"].values()]
    # as the phone shows them: a state ON or OFF, the network's name kept as the manual writes it
    shown = [re.sub(r"\{(?!ssid\})\w+\}", state, text) for text in texts for state in ("ON", "OFF")]
    manual = (ROOT / "data" / "domains" / "telecom" / "tech_support_manual.md").read_text()
    # 「...」と表示, and the status bar's indicators (「✈️ 機内モード」)
    quotes = re.findall(r"「([^「」`\n]+)」と表示", manual) + re.findall(r"「([^\w「」\s`][^「」\n]*)」", manual)
    quotes = [q.replace("[SSID]", "{ssid}") for q in quotes if JAPANESE.search(q)]
    assert len(quotes) >= 8
    assert [q for q in quotes if not any(q in text for text in shown)] == []
