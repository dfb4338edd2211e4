"""A result says which J-tau made it: `jtau tau2 run` stamps tau2's results file with J-tau's name,
version and dataset digest (tau2 still loads it), traces and reports carry them, and a J-tau name
another package registered first is taken over and said, never silently."""

from __future__ import annotations

import hashlib
import json

from conftest import ROOT, jtau
from jtau import __version__
from jtau.experiment.calibrate import scripted_server
from jtau.experiment.scripted import AGENT, CUSTOMER
from jtau.maps import load_maps
from jtau.retention.canonical import Canonicalizer
from jtau.retention.corpus import analyze
from jtau.retention.importers import from_tau2_results
from jtau.retention.traces import Trace, read_traces, write_traces
from jtau.runtime.compat import results_file, runtime_name

AIRLINE_DIGEST = hashlib.sha256((ROOT / "data" / "domains" / "airline" / "manifest.json").read_bytes()).hexdigest()


def test_a_results_file_written_through_jtau_names_j_tau_its_version_and_digest(tmp_path):
    from tau2.data_model.simulation import Results

    save = tmp_path / "run"
    with scripted_server(["airline"], ["ja"], task_ids=["1"]) as server:
        args = json.dumps(server.args())
        result = jtau("tau2", "run", "--domain", "airline_ja", "--user", "user_simulator_ja", "--agent-llm",
                      f"openai/{AGENT}", "--user-llm", f"openai/{CUSTOMER}", "--agent-llm-args", args,
                      "--user-llm-args", args, "--num-trials", "1", "--save-to", str(save), "--task-ids", "1",
                      env={"OPENAI_API_KEY": "sk-scripted"})
    assert result.returncode == 0, result.stderr[-2000:]
    path = results_file(save)
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert next(iter(data)) == "jtau"  # first, before tau2's own keys
    assert data["jtau"] == {"name": "J-tau", "version": __version__, "runtime": runtime_name(),
                            "datasets": {"airline_ja": AIRLINE_DIGEST}}
    loaded = Results.model_validate_json(text)  # what tau2's viewer and Results.load do
    assert [s.task_id for s in loaded.simulations] == ["1"]
    [trace] = from_tau2_results(path)
    assert (trace.jtau, trace.dataset) == (__version__, AIRLINE_DIGEST)
    write_traces(tmp_path / "traces.jsonl", [trace])
    [again] = read_traces([tmp_path / "traces.jsonl"])
    assert (again.jtau, again.dataset) == (__version__, AIRLINE_DIGEST)


def test_stamping_keeps_tau2s_bytes_and_is_done_once(tmp_path):
    from jtau.runtime.provenance import stamp_results
    from jtau.runtime.tau2_entry import register

    register()
    path = tmp_path / "results.json"
    original = json.dumps({"timestamp": "t", "info": {"environment_info": {"domain_name": "airline_ja"}},
                           "tasks": [], "simulations": []}, indent=4).encode()
    path.write_bytes(original)
    block = stamp_results(path)
    stamped = path.read_bytes()
    inserted = b'\n    "jtau": ' + json.dumps(block, indent=4).replace("\n", "\n    ").encode() + b","
    assert stamped.replace(inserted, b"") == original
    stamp_results(path)
    assert path.read_bytes() == stamped
    path.write_bytes(json.dumps({"info": {"environment_info": {"domain_name": "airline"}}}).encode())
    assert stamp_results(path) is None  # tau2's own domain: nothing of J-tau's to name


def test_traces_carry_provenance_into_the_reports_cells():
    def trace(language, replicate, task, dataset):
        return Trace("m", "airline", language, 0.0, replicate, str(task), True, [{"tool": "t", "args": {}}],
                     jtau=__version__, dataset=dataset)

    traces = [trace(lang, r, task, f"digest-{lang}") for task in range(3) for lang in ("en", "ja") for r in (0, 1)]
    [cell] = analyze(traces, Canonicalizer(load_maps(ROOT / "entity_maps")), "en", "ja", 50, 0).cells
    assert cell["provenance"] == {"en": {"jtau": [__version__], "dataset": ["digest-en"]},
                                  "ja": {"jtau": [__version__], "dataset": ["digest-ja"]}}


class Registry:
    """tau2's registry as another package leaves it: airline_ja registered by that package."""

    def __init__(self):
        def foreign_environment():
            return "theirs"
        foreign_environment.__module__ = "sbintuitions_jtau.domains"
        self._domains, self._tasks, self._task_splits = {"airline_ja": foreign_environment}, {}, {}
        self._tasks["airline_ja"] = foreign_environment

    def get_domains(self):
        return list(self._domains)

    def get_task_sets(self):
        return list(self._tasks)

    def register_domain(self, environment, name):
        assert name not in self._domains
        self._domains[name] = environment

    def register_tasks(self, tasks, name, get_task_splits=None):
        assert name not in self._tasks
        self._tasks[name] = tasks


def test_a_name_another_package_registered_is_taken_over_and_said(monkeypatch):
    from jtau.runtime import registration
    from jtau.runtime.tau2_entry import collision_note

    monkeypatch.setattr(registration, "COLLISIONS", {})
    monkeypatch.setattr(registration, "SHADOWED", set())
    registry = Registry()
    registration.register_arms(registry)
    assert getattr(registry._domains["airline_ja"], "__jtau__", False)
    assert getattr(registry._tasks["airline_ja"], "__jtau__", False)
    assert registration.COLLISIONS == {"airline_ja": "sbintuitions_jtau.domains"}
    note = collision_note()
    assert note.startswith("note: tau2 already had airline_ja from sbintuitions_jtau.domains") and "\n" not in note
    registration.register_arms(registry)  # J-tau's own registrations are no collision
    assert registration.COLLISIONS == {"airline_ja": "sbintuitions_jtau.domains"}


def test_without_a_collision_nothing_is_said(monkeypatch):
    from jtau.runtime import registration
    from jtau.runtime.tau2_entry import collision_note

    monkeypatch.setattr(registration, "COLLISIONS", {})
    registry = Registry()
    registry._domains.clear()
    registry._tasks.clear()
    registration.register_arms(registry)
    assert collision_note() is None
