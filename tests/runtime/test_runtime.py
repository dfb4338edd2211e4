"""J-tau in tau2: the overlay, the registry entry point, and `jtau verify`."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from tau2.data_model.message import ToolCall

from conftest import PROJECT, ROOT, jtau, tau2_error_messages
from jtau.runtime.compat import results_file
from jtau.runtime.tau2_entry import jtau_domains, register

OUT = ROOT / "data" / "domains" / "airline"
SUMMARY_GET_USER_DETAILS = "ユーザーの詳細を、そのユーザーの予約を含めて取得します。"


@pytest.fixture(scope="module")
def airline_ja():
    return jtau_domains(PROJECT)["airline_ja"]


def call(env, name, **arguments):
    return env.get_response(ToolCall(id="c", name=name, arguments=arguments, requestor="assistant"))


def test_tools_speak_japanese_and_know_japanese_airports(airline_ja):
    env = airline_ja.get_environment()
    tools = {tool.name: tool for tool in env.get_tools()}
    assert len(tools) == 14
    assert tools["book_reservation"].short_desc == "予約を作成します。"
    assert "KKJ" in tools["book_reservation"].params.model_json_schema()["properties"]["origin"]["description"]
    schemas = json.dumps([tool.openai_schema for tool in tools.values()], ensure_ascii=False)
    assert "dollar" not in schemas and "支払い金額（円）" in schemas   # nested argument types too
    assert "'SFO'" not in schemas and "'JFK'" not in schemas
    airports = json.loads(call(env, "list_all_airports").content)
    assert {a["iata"] for a in airports} >= {"KIX", "ITM", "UKB", "HND", "CTS"} and len(airports) == 20
    assert {"iata": "ITM", "city": "伊丹"} in airports
    assert call(env, "calculate", expression="2 * ((35000 - 12200) + (49900 - 12700))").content == "120000"


def test_fees_are_in_yen(airline_ja):
    env = airline_ja.get_environment()
    # a 1-passenger economy booking with insurance and one paid bag: fare + 3,000 + 5,000
    user = "sakura_watanabe_7557"
    fare = env.tools.db.flights["HAT271"].dates["2024-05-26"].prices["economy"]
    args = dict(user_id=user, origin="HND", destination="OKJ", flight_type="one_way", cabin="economy",
                flights=[{"flight_number": "HAT271", "date": "2024-05-26"}],
                passengers=[{"first_name": "咲良", "last_name": "渡辺", "dob": "1957-10-05"}],
                total_baggages=1, nonfree_baggages=1, insurance="yes")
    card = next(k for k, m in env.tools.db.users[user].payment_methods.items() if m.source == "credit_card")
    short = call(env, "book_reservation", payment_methods=[{"payment_id": card, "amount": fare + 30 + 50}], **args)
    assert short.error and f"合計金額{fare + 8000}、" in short.content
    booked = call(env, "book_reservation", payment_methods=[{"payment_id": card, "amount": fare + 8000}], **args)
    assert not booked.error and json.loads(booked.content)["payment_history"][0]["amount"] == fare + 8000


def test_registry_entry_point_runs_a_task_from_tau2s_side():
    from tau2.registry import registry

    from conftest import banking_here

    names = register(PROJECT, registry)  # every arm (test_arms_runtime.py); J-tau's, in tau2's order
    assert [n for n in names if n.endswith("_ja")] == ["airline_ja", "retail_ja", "telecom_ja", "telecom-workflow_ja",
                                                       "telecom_full_ja", "telecom_small_ja"] + (
        ["banking_knowledge_ja"] if banking_here() else [])
    assert "airline_ja" in registry.get_domains()
    tasks = registry.get_tasks_loader("airline_ja")("base")
    task = next(t for t in tasks if t.id == "8")
    env = registry.get_env_constructor("airline_ja")()
    env.set_state(initialization_data=None, initialization_actions=None, message_history=[])
    responses = [env.get_response(ToolCall(id=str(i), name=a.name, arguments=a.arguments, requestor=a.requestor))
                 for i, a in enumerate(task.evaluation_criteria.actions)]
    assert [r.error for r in responses] == [False] * 4
    booking = json.loads(responses[-1].content)
    assert booking["passengers"][1]["first_name"] == "浩二" and booking["payment_history"][0]["amount"] == 34800


def test_the_japanese_user_simulator_is_registered_with_japanese_guidelines(airline_ja):
    from tau2.registry import registry

    register(PROJECT, registry)
    task = next(t for t in airline_ja.get_tasks() if t.id == "0")
    user = registry.get_user_constructor("user_simulator_ja")(instructions=task.user_scenario.instructions,
                                                               llm="none")
    prompt = user.system_prompt
    assert prompt.startswith("# ユーザーシミュレーションのガイドライン")
    assert "会話はすべて日本語で行ってください" in prompt
    assert all(token in prompt for token in ("'###STOP###'", "'###TRANSFER###'", "'###OUT-OF-SCOPE###'"))
    assert "あなたは金子 恵美です。" in prompt  # the task's Japanese instructions follow


def test_a_tau2_run_on_j_tau_end_to_end_then_retention_import(tmp_path):
    """`jtau tau2 run` drives tau2's orchestrator on airline_ja with the Japanese user simulator
    (against a scripted local chat server), and its results import as traces."""
    from fake_chat import FakeChat

    save = tmp_path / "run"
    with FakeChat("emi_kaneko_9957") as chat:
        llm_args = json.dumps({"api_base": chat.url, "temperature": 0.0})
        result = jtau("tau2", "run", "--domain", "airline_ja", "--user", "user_simulator_ja",
                      "--agent-llm", "openai/fake", "--user-llm", "openai/fake", "--agent-llm-args", llm_args,
                      "--user-llm-args", llm_args, "--task-ids", "0", "--num-trials", "1",
                      "--max-concurrency", "1", "--save-to", str(save), env={"OPENAI_API_KEY": "sk-fake"})
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        user_prompt = next(r for r in chat.requests if not r.get("tools"))["messages"][0]["content"]
        agent_prompt = next(r for r in chat.requests if r.get("tools"))
    assert "会話はすべて日本語で行ってください" in user_prompt and "あなたは金子 恵美です。" in user_prompt
    described = {t["function"]["name"]: t["function"]["description"] for t in agent_prompt["tools"]}
    assert described["get_user_details"] == SUMMARY_GET_USER_DETAILS
    assert "航空会社エージェント向けポリシー" in agent_prompt["messages"][0]["content"]  # the Japanese policy
    results = results_file(save)  # 26.3: run.json, 1.0.1: run/results.json
    run = json.loads(results.read_text())
    messages = run["simulations"][0]["messages"]
    assert messages[0]["content"] == "こんにちは。本日はどのようなご用件でしょうか？"
    traces = tmp_path / "traces.jsonl"
    assert jtau("retention", "import", "--tau2", str(results), "-o", str(traces)).returncode == 0
    [trace] = [json.loads(line) for line in traces.read_text().splitlines()]
    assert (trace["benchmark"], trace["language"], trace["task_id"]) == ("airline", "ja", "0")
    assert "sk-fake" not in results.read_text()  # tau2 records llm args: through jtau, keys redacted
    assert trace["actions"] == [{"tool": "get_user_details", "args": {"user_id": "emi_kaneko_9957"}}]


def test_verify_passes_on_the_committed_data():
    result = jtau("verify", "airline", "--task", "8", "--task", "14", "--task", "23")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3/3 tasks commute" in result.stdout


def corrupted(tmp_path, change):
    out = tmp_path / "out"
    shutil.copytree(OUT, out / "airline")
    db = json.loads((out / "airline" / "db.json").read_text())
    change(db)
    (out / "airline" / "db.json").write_text(json.dumps(db, ensure_ascii=False, indent=4) + "\n")
    return out


def test_verify_reports_a_corrupted_amount_with_task_and_path(tmp_path):
    def change(db):
        db["users"]["misaki_kaneko_4397"]["payment_methods"]["gift_card_7773485"]["amount"] = 100
    out = corrupted(tmp_path, change)
    report = tmp_path / "report.json"
    result = jtau("verify", "airline", "--out", str(out), "--task", "24", "--json", str(report), "--no-rewards")
    assert result.returncode == 1
    checks = {c["task"]: c for c in json.loads(report.read_text())}
    assert any("initial db differs at users.misaki_kaneko_4397.payment_methods.gift_card_7773485.amount" in p
               for p in checks["(initial db)"]["problems"])
    assert "action 0 book_reservation: ok on the source, error localized" in checks["24"]["problems"]
    assert not checks["24"]["ok"] and "0/1 tasks commute" in result.stdout
    assert result.stdout.splitlines()[-1] == ("verify airline: not every task commutes (2 failing in airline); "
                                              f"next: jtau verify airline --json FILE --out {out} (every problem of "
                                              "every task)")  # the folder verified, not data/domains


def test_verify_reports_a_corrupted_user_id(tmp_path):
    def change(db):
        users = db["users"]
        db["users"] = {("someone_else_9847" if k == "naoki_murakami_9847" else k): v for k, v in users.items()}
    out = corrupted(tmp_path, change)
    report = tmp_path / "report.json"
    result = jtau("verify", "airline", "--out", str(out), "--task", "2", "--json", str(report), "--no-rewards")
    assert result.returncode == 1
    checks = {c["task"]: c for c in json.loads(report.read_text())}
    assert "action 0 get_user_details: ok on the source, error localized" in checks["2"]["problems"]
    assert any("users.naoki_murakami_9847: missing" in p for p in checks["(initial db)"]["problems"])


def test_tool_results_reach_the_agent_as_japanese_characters_not_escapes(airline_ja):
    env = airline_ja.get_environment()
    user = next(iter(env.tools.db.users))
    result = env.get_response(ToolCall(id="1", name="get_user_details", arguments={"user_id": user},
                                       requestor="assistant"))
    assert "\\u" not in result.content and re.search(r"[\u4e00-\u9fff]", result.content)
    assert json.loads(result.content)["user_id"] == user


@pytest.mark.parametrize("said, reward", [
    ("合計は162,800円です。", 1.0), ("合計は16万2,800円です。", 1.0), ("合計は16万2800円です。", 1.0),
    ("合計は１６２，８００円です。", 1.0), ("合計は十六万二千八百円です。", 1.0), ("合計は162,900円です。", 0.0),
])
def test_communicate_accepts_japanese_amounts_on_j_tau_only(said, reward):
    from tau2.data_model.message import AssistantMessage, UserMessage
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.registry import registry

    register(PROJECT, registry)
    task = next(t for t in registry.get_tasks_loader("airline_ja")("base") if t.id == "7")
    assert task.evaluation_criteria.communicate_info == ["162800"]
    messages = [UserMessage(role="user", content="いくらになりますか？"),
                AssistantMessage(role="assistant", content=said)]
    run = SimulationRun(id="x", task_id="7", start_time="", end_time="", duration=0.0,
                        termination_reason=TerminationReason.AGENT_STOP, messages=messages)
    ja = evaluate_simulation(run, task, EvaluationType.COMMUNICATE, False, "airline_ja")
    assert ja.reward == reward
    english = evaluate_simulation(run, task, EvaluationType.COMMUNICATE, False, "airline")  # tau2's own grading
    assert english.reward == (1.0 if said == "合計は162,800円です。" else 0.0)


def test_the_japanese_simulator_reads_japanese_scenario_labels(airline_ja):
    from tau2.registry import registry

    register(PROJECT, registry)
    task = next(t for t in airline_ja.get_tasks() if t.id == "0")
    user = registry.get_user_constructor("user_simulator_ja")(instructions=str(task.user_scenario), llm="none")
    prompt = user.system_prompt
    assert "問い合わせの理由：" in prompt and "タスクの指示：" in prompt
    assert "Reason for call" not in prompt and "Task instructions" not in prompt
    assert "担当者に問い合わせる" not in prompt and "エージェントに問い合わせる" in prompt


def test_communicate_accepts_a_card_brand_said_in_katakana_on_j_tau_only():
    from tau2.data_model.message import AssistantMessage, UserMessage
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.registry import registry

    register(PROJECT, registry)
    task = next(t for t in registry.get_tasks_loader("retail_ja")("base") if t.id == "40")
    assert "mastercard" in task.evaluation_criteria.communicate_info
    said = [f"{item}です。" for item in task.evaluation_criteria.communicate_info if item != "mastercard"]
    messages = [UserMessage(role="user", content="どのカードですか？"),
                AssistantMessage(role="assistant", content=" ".join(said) + " お支払いはマスターカードです。")]
    run = SimulationRun(id="x", task_id="40", start_time="", end_time="", duration=0.0,
                        termination_reason=TerminationReason.AGENT_STOP, messages=messages)
    assert evaluate_simulation(run, task, EvaluationType.COMMUNICATE, False, "retail_ja").reward == 1.0
    assert evaluate_simulation(run, task, EvaluationType.COMMUNICATE, False, "retail").reward == 0.0


@pytest.mark.xdist_group("verify_all")  # one worker runs the shared `jtau verify all`
def test_verify_all_lists_thousands_of_tasks_only_by_their_problems(verify_all):
    result, by_domain = verify_all
    assert result.returncode == 0, result.stdout + result.stderr
    for summary in ("airline: 50/50", "retail: 114/114", "telecom: 2285/2285"):
        assert f"{summary} tasks commute" in result.stdout
    assert "jtau verify airline" in result.stdout  # 50 rows: the table of every task
    assert "jtau verify telecom" not in result.stdout  # 2,285 rows and no problem: no table
    from conftest import banking_here

    banking = banking_here()
    tasks, names = ("2,546", "airline, retail, telecom, banking_knowledge") if banking else \
        ("2,449", "airline, retail, telecom")
    assert result.stdout.splitlines()[-1] == (  # one line of result, and what to do next
        f"verify all: every task commutes ({tasks} tasks in {names}); next: jtau tau2 run --domain "
        "airline_ja --user user_simulator_ja-en-prompt --agent-llm MODEL --user-llm MODEL (an agent on J-tau)")
    assert {d: len(checks) for d, checks in by_domain.items()} == {
        "airline": 51, "retail": 115, "telecom": 2286, **({"banking_knowledge": 98} if banking else {})}
    refused = jtau("verify", "all", "--task", "1")
    assert refused.returncode == 2 and "--task names tasks of one domain" in refused.stderr


def test_every_tool_error_of_tau2_reads_in_japanese_with_its_values():
    from jtau.runtime.tool_errors import japanese_error

    messages = tau2_error_messages()
    assert len(messages) >= 60
    for message, module in messages.items():
        sample = re.sub(r"\{[^}]+\}", "X_1", message)  # an id, date or amount where tau2 writes one
        japanese = japanese_error(f"Error: {sample}")
        assert japanese.startswith("エラー："), (module, message)
        assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", japanese), (module, message)
        assert japanese.count("X_1") == sample.count("X_1"), (module, message)


def test_a_failed_tool_call_reads_in_japanese_and_is_still_an_error(airline_ja):
    env = airline_ja.get_environment()
    missing = call(env, "get_user_details", user_id="nobody_1")
    assert missing.error and missing.content == "エラー：ユーザーnobody_1が見つかりません"
    unknown = call(env, "get_flight_status", flight_number="HAT001", date="2099-01-01")
    assert unknown.error and unknown.content == "エラー：2099-01-01の便HAT001が見つかりません"
    misnamed = call(env, "get_user_details", user="nobody_1")
    assert misnamed.error and misnamed.content == \
        "エラー：AirlineTools.get_user_details() に想定外の引数 'user' が渡されました"
    forgotten = call(env, "get_user_details")
    assert forgotten.content == "エラー：AirlineTools.get_user_details() に必須の引数 'user_id' がありません"
