"""The localized telecom domain, checked against the real source independently of the
validator: phones, customers, exact yen in TOML, task files, runtime and bad input."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from decimal import Decimal

from conftest import PROJECT, RATE, ROOT, jtau, money


def test_no_source_phone_name_or_email_survives_in_any_file(telecom, domains_dir):
    source = domains_dir / "telecom"
    db = tomllib.loads((source / "db.toml").read_text())
    names = {part for c in db["customers"] for part in c["full_name"].split()}
    emails = {c["email"] for c in db["customers"]}
    word = re.compile(r"555-123-\d{4}|(?<![A-Za-z])(?:" + "|".join(sorted(names | emails)) + r")(?![A-Za-z])")
    assert sum(len(word.findall(p.read_text())) for p in source.glob("*.json")) > 10000  # not blind
    for name, data in telecom.outputs.items():
        assert not word.findall(data.decode("utf-8")), name


def test_every_amount_is_exactly_100_times_the_source_and_bills_add_up(telecom, domains_dir):
    src = tomllib.loads((domains_dir / "telecom" / "db.toml").read_text())
    out = tomllib.loads(telecom.outputs["db.toml"].decode())
    pairs = [(a[k], b[k]) for a, b in zip(src["plans"], out["plans"])
             for k in ("price_per_month", "data_refueling_price_per_gb")]
    pairs += [(a["goodwill_credit_used_this_year"], b["goodwill_credit_used_this_year"])
              for a, b in zip(src["customers"], out["customers"])]
    for a, b in zip(src["bills"], out["bills"]):
        pairs.append((a["total_due"], b["total_due"]))
        pairs += [(x["amount"], y["amount"]) for x, y in zip(a["line_items"], b["line_items"])]
        assert b["total_due"] == sum(item["amount"] for item in b["line_items"])
    assert len(pairs) > 30 and (0.1, 10) in pairs
    assert all(isinstance(o, int) and Decimal(o) == money(s) * RATE for s, o in pairs)


def test_tau2_loads_the_localized_toml_and_bills_name_the_localized_plans(telecom, tmp_path):
    from tau2.domains.telecom.data_model import TelecomDB

    (tmp_path / "db.toml").write_bytes(telecom.outputs["db.toml"])
    db = TelecomDB.load(str(tmp_path / "db.toml"))
    assert len(db.customers) == 4 and db.customers[0].full_name == "高橋 健太"
    items = [i.description for b in db.bills for i in b.line_items]
    assert "ベーシックプラン - 回線 090-0000-2001" in items and "データ超過料金 - 回線 090-0000-2002" in items


def test_task_files_keep_ids_order_and_phones_resolve(telecom, domains_dir):
    source = json.loads((domains_dir / "telecom" / "tasks.json").read_text())
    tasks = json.loads(telecom.outputs["tasks.json"])
    assert [t["id"] for t in tasks] == [t["id"] for t in source] and len(tasks) == 2285
    assert telecom.outputs["tasks_full.json"] == telecom.outputs["tasks.json"]
    small = json.loads(telecom.outputs["tasks_small.json"])
    by_id = {t["id"]: t for t in tasks}
    assert len(small) == 20 and all(by_id[t["id"]] == t for t in small)
    phones = {line["phone_number"] for line in tomllib.loads(telecom.outputs["db.toml"].decode())["lines"]}
    seen = 0
    for task in tasks:
        for action in task["initial_state"]["initialization_actions"] or []:
            if "phone_number" in action["arguments"]:
                assert action["arguments"]["phone_number"] in phones
                seen += 1
    assert seen == 2285


def test_text_is_japanese_and_collapses_to_few_templates(telecom):
    assert len(telecom.text.fields) > 13000
    task_templates = {p.text for f in telecom.text.fields if f.file == "tasks.json" for p in f.pieces
                      if not isinstance(p, str)}
    assert len(task_templates) == 30
    japanese = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
    for name in telecom.rules.files.policy_files:
        lines = [line for line in telecom.outputs[name].decode().splitlines() if re.search("[A-Za-z]{4}", line)]
        assert all(japanese.search(line) for line in lines), name
    task = json.loads(telecom.outputs["tasks.json"])[0]
    assert task["user_scenario"]["instructions"]["known_info"] == ("あなたは高橋 健太で、電話番号は090-0000-2002です。"
                                                                  "現在、海外（フランス）にいます。")


def test_telecom_ja_writes_yen_into_bills():
    from tau2.data_model.message import ToolCall

    from jtau.runtime.tau2_entry import jtau_domains

    env = jtau_domains(PROJECT)["telecom_ja"].get_environment()
    result = env.get_response(ToolCall(id="1", name="refuel_data", requestor="assistant",
                                       arguments={"customer_id": "C1001", "line_id": "L1002", "gb_amount": 2.0}))
    assert not result.error and "400円" in result.content and "$" not in result.content
    bill = next(b for b in env.tools.db.bills if b.bill_id == "B1003")
    assert bill.line_items[-1].description == "データ追加：2.0GB（1GBあたり200円）"
    described = {t.name: t.openai_schema["function"]["description"] for t in env.get_tools()}
    assert "請求書" in described["send_payment_request"]
    workflow = jtau_domains(PROJECT)["telecom_ja"].get_workflow_environment()
    assert "<tech_support_policy>" in workflow.policy and workflow.domain_name == "telecom-workflow_ja"


def test_the_phone_names_a_payment_request_in_yen_in_japanese(domains_dir):
    from tau2.data_model.tasks import Task

    from jtau.runtime.domains import runtime_domain
    from jtau.runtime.tau2_entry import jtau_domains
    from jtau.runtime.verify import replay

    task_id = "[service_issue]overdue_bill_suspension[PERSONA:Easy]"
    source_tasks = json.loads((domains_dir / "telecom" / "tasks.json").read_text())
    [source_task] = [Task.model_validate(t) for t in source_tasks if t["id"] == task_id]
    [task] = [t for t in jtau_domains(PROJECT)["telecom_ja"].get_tasks(None) if t.id == task_id]
    said = []
    for make, this in ((runtime_domain("telecom").source_environment(), source_task),
                       (jtau_domains(PROJECT)["telecom_ja"].get_environment, task)):
        _, trajectory, outcomes = replay(make, this)
        assert outcomes[:2] == ["ok", "ok"]  # send_payment_request, make_payment
        said.append(next(m.content for m in trajectory if getattr(m, "id", None) == "golden_1"))
    dollars = re.fullmatch(r"Payment of ([\d.]+) USD has been made for bill (\w+)\.", said[0])
    yen = int(RATE * Decimal(dollars[1]))
    assert yen > 0 and said[1] == f"請求書{dollars[2]}の{yen:,}円の支払いが完了しました。"


def test_a_phone_map_that_is_not_one_to_one_is_an_input_error(project, tmp_path):
    addresses = project / "entity_maps" / "addresses.yaml"
    addresses.write_text(addresses.read_text().replace("555-123-2009: 090-0000-2009", "555-123-2009: 090-0000-2008"))
    result = jtau("localize", "telecom", "--out", str(tmp_path / "out"), root=project)
    assert result.returncode == 2
    assert re.search(r"addresses\.yaml:\d+: phones: '555-123-2009' and '555-123-2008' both map",
                     result.stderr.replace("\n", ""))
    assert not (tmp_path / "out").exists()


def test_broken_toml_names_file_and_line(tmp_path, domains_dir):
    source = tmp_path / "domains" / "telecom"
    shutil.copytree(domains_dir / "telecom", source, ignore=shutil.ignore_patterns("*.png", "*.pdf", "__pycache__"))
    text = (source / "db.toml").read_text().splitlines()
    text[2] = 'name = "Basic Plan'
    (source / "db.toml").write_text("\n".join(text) + "\n")
    result = jtau("localize", "telecom", "--source", str(source.parent), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "db.toml:3:" in result.stderr.replace("\n", "") and "invalid TOML" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_task_phone_missing_from_the_map_is_reported_with_its_path(tmp_path, domains_dir):
    source = tmp_path / "domains" / "telecom"
    shutil.copytree(domains_dir / "telecom", source, ignore=shutil.ignore_patterns("*.png", "*.pdf", "__pycache__"))
    tasks = json.loads((source / "tasks.json").read_text())
    tasks[5]["initial_state"]["initialization_actions"][0]["arguments"]["phone_number"] = "555-123-9999"
    (source / "tasks.json").write_text(json.dumps(tasks))
    result = jtau("localize", "telecom", "--source", str(source.parent), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "[5].initial_state.initialization_actions[0].arguments.phone_number" in result.stderr.replace("\n", "")
    assert not (tmp_path / "out").exists()


def test_goodwill_credit_and_the_suspension_fee_have_one_japanese_name_everywhere(telecom):
    """Bilingual review: 好意的クレジット is no telecom word; one fee had three names (回線停止手数料 in
    bill lines, 利用停止 in the texts, 保留手数料 in suspend_line's message)."""
    from tau2.data_model.message import ToolCall

    from jtau.glossary import load_glossary
    from jtau.runtime.tau2_entry import jtau_domains

    terms = load_glossary(ROOT / "glossaries" / "ja.yaml").terms
    assert terms["goodwill credit"].ja == "お詫び割引" and terms["suspension fee"].ja == "利用停止手数料"
    assert terms["suspension"].ja == "利用停止" and "holding fee" in terms["suspension fee"].variants
    memory = [json.loads(line) for line in (ROOT / "data" / "tm" / "telecom.jsonl").read_text().splitlines()]
    wrong = re.compile("好意的|回線停止|保留手数料")
    assert not [e["target"] for e in memory if wrong.search(e["target"])]
    assert any("お詫び割引" in e["target"] for e in memory if "goodwill credit" in e["source"])
    assert not [name for name, data in telecom.outputs.items() if wrong.search(data.decode("utf-8"))]
    db = tomllib.loads(telecom.outputs["db.toml"].decode())
    bills = [i["description"] for b in db["bills"] for i in b["line_items"]]
    assert any(d.startswith("利用停止手数料 - 回線 ") for d in bills)
    env = jtau_domains(PROJECT)["telecom_ja"].get_environment()
    line = next(x for x in env.tools.db.lines if x.status == "Active")
    customer = next(c for c in env.tools.db.customers if line.line_id in c.line_ids)
    result = env.get_response(ToolCall(id="1", name="suspend_line", requestor="assistant",
                                       arguments={"customer_id": customer.customer_id, "line_id": line.line_id,
                                                  "reason": "travel"}))
    assert not result.error and "利用停止手数料として月額500円" in result.content
    tool_texts = "".join((ROOT / "src" / "jtau" / n).read_text() for n in (
        "domains/telecom/tools.ja.yaml", "domains/telecom/user_tools.ja.yaml", "runtime/tool_errors.ja.yaml"))
    assert not wrong.search(tool_texts) and "利用停止" in tool_texts
