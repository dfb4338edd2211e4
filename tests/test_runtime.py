"""J-tau in tau2: the overlay, the registry entry point, and `jtau verify`."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import ROOT, jtau

from tau2.data_model.message import ToolCall

from jtau.runtime.tau2_entry import jtau_domains, register

OUT = ROOT / "data" / "domains" / "airline"


@pytest.fixture(scope="module")
def airline_ja():
    return jtau_domains(ROOT)["airline_ja"]


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
    assert short.error and f"total price is {fare + 8000}" in short.content
    booked = call(env, "book_reservation", payment_methods=[{"payment_id": card, "amount": fare + 8000}], **args)
    assert not booked.error and json.loads(booked.content)["payment_history"][0]["amount"] == fare + 8000


def test_registry_entry_point_runs_a_task_from_tau2s_side():
    from tau2.registry import registry

    assert register(ROOT, registry) == ["airline_ja"]
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
