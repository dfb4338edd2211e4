"""Shards (`jtau experiment run --shard K/N`): every shard runs its part of the plan, computed from
the plan alone; shards share one folder or write one each; the report of the parts is the report
of one unsharded run, every number.  On a real one-node Slurm cluster (tests/slurmkit.py): a
shard killed halfway, then an `sbatch --array=0-1` job that completes the experiment."""

from __future__ import annotations

import json
import sys
import time

import pytest

import slurmkit
from conftest import jtau

KEY = "JTAU_SCRIPTED_KEY"
pytestmark = pytest.mark.xdist_group("shards")  # one scripted server and one unsharded run for all


@pytest.fixture(scope="module")
def scripted():
    """The scripted agent and customer behind a local server, for two airline tasks."""
    from jtau.experiment.calibrate import calibration_tasks, scripted_server

    ids = calibration_tasks("airline", 2)
    with scripted_server(["airline"], ["en", "ja"], task_ids=ids) as server, pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY, "scripted")  # the scripted server takes any key
        yield server, ids


def run_args(scripted, out, *extra: str) -> list[str]:
    server, ids = scripted
    args = json.dumps({"api_base": server.url, "temperature": 0.0})
    return ["experiment", "run", "--out", str(out), "--domains", "airline", "--arms", "en,ja", "--users", "ja",
            "--agent-llm", "openai/jtau-golden", "--agent-llm-args", args, "--user-llm", "openai/jtau-customer",
            "--user-llm-args", args, "--agent-key-env", KEY, "--user-key-env", KEY, "--trials", "2",
            "--max-retries", "0", *extra, "--task-ids", *ids]


def numbers(tmp_path, *folders) -> dict:
    """Every number of the report of `folders` (cells, summary, decomposition)."""
    out = tmp_path / f"report-{len(list(tmp_path.iterdir()))}.json"
    result = jtau("experiment", "report", *map(str, folders), "--json", str(out), "--markdown", str(out) + ".md")
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    return {key: report[key] for key in ("cells", "summary", "decomposition")}


@pytest.fixture(scope="module")
def unsharded(scripted, tmp_path_factory):
    folder = tmp_path_factory.mktemp("whole") / "exp"
    result = jtau(*run_args(scripted, folder))
    assert result.returncode == 0, result.stderr
    return folder


def simulations(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in (folder / "simulations").glob("*/*/*.json"))


def test_shards_in_one_folder_report_as_one_unsharded_run(scripted, unsharded, tmp_path):
    folder = tmp_path / "exp"
    ran = []
    for k in range(3):
        result = jtau(*run_args(scripted, folder, "--shard", f"{k}/3"))
        assert result.returncode == 0, result.stderr
        ran.append(len(simulations(folder)))
    assert ran == [3, 6, 8]  # 2 tasks x 2 arms x 2 trials, a third each
    empty = jtau(*run_args(scripted, folder, "--shard", "30/40"))  # a shard with no work
    assert empty.returncode == 0 and "0/0 simulations" in empty.stdout
    assert simulations(folder) == simulations(unsharded)
    assert numbers(tmp_path, folder) == numbers(tmp_path, unsharded)


def test_shards_in_their_own_folders_report_as_one(scripted, unsharded, tmp_path):
    folders = [tmp_path / f"shard{k}" for k in range(3)]
    for k, folder in enumerate(folders):
        assert jtau(*run_args(scripted, folder, "--shard", f"{k}/3")).returncode == 0
    assert numbers(tmp_path, *folders) == numbers(tmp_path, unsharded)
    twice = jtau("experiment", "report", str(folders[0]), str(folders[0]))
    assert twice.returncode == 2 and "the same simulation as" in twice.stderr
    other = tmp_path / "other"
    assert jtau(*run_args(scripted, other, "--trials", "1")).returncode == 0  # (the later --trials wins)
    refused = jtau("experiment", "report", str(folders[0]), str(other))
    assert refused.returncode == 2 and "are not one experiment: their plan differ" in refused.stderr


def test_a_shard_is_k_of_n(scripted, tmp_path):
    for bad in ("4/4", "1", "-1/4", "a/b"):
        result = jtau(*run_args(scripted, tmp_path / "exp", "--shard", bad))
        assert result.returncode == 2 and "--shard" in result.stderr and "K/N" in result.stderr


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    why = slurmkit.missing()
    if why:
        pytest.skip(why)
    cluster = slurmkit.Cluster(tmp_path_factory.mktemp("slurm")).start()
    yield cluster
    cluster.stop()


def job_script(tmp_path, scripted, folder, concurrency: int = 4) -> str:
    """The sbatch script docs/EXPERIMENT.md gives, with this test's scripted models."""
    args = " ".join(f"'{a}'" for a in run_args(scripted, folder, "--concurrency", str(concurrency)))
    script = tmp_path / "shards.sh"
    script.write_text(f"""#!/bin/bash
#SBATCH --output={tmp_path}/slurm-%A_%a.out
exec {sys.executable} -m jtau {args} --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT"
""")
    return str(script)


def test_a_shard_killed_halfway_and_an_array_job_over_all_shards_complete_the_experiment(cluster, scripted, unsharded,
                                                                                         tmp_path):
    """Shard 0 of 2 is killed after its first simulation; `sbatch --array=0-1` then runs every
    shard (shard 0 only what it lacks), and the report is the unsharded run's.  Two shards, not
    more: each is a whole `python -m jtau` that imports tau2 (seconds of CPU)."""
    server, _ = scripted
    answer = server.agent

    def slow(*args, **kwargs):  # a model that takes its time: the kill lands mid-shard
        time.sleep(0.2)
        return answer(*args, **kwargs)

    server.agent = slow
    try:
        folder = tmp_path / "exp"
        script = job_script(tmp_path, scripted, folder, concurrency=1)
        job = cluster.sbatch("--array=0", script)
        deadline = time.monotonic() + 300
        while not simulations(folder) and time.monotonic() < deadline:
            time.sleep(0.05)
        cluster.cancel(job)
        cluster.wait(job)
        partial = simulations(folder)
        assert len(partial) == 1, partial  # shard 0 of 2 holds 4 of the 8: killed after its first
        again = cluster.sbatch("--array=0-1", script)
        cluster.wait(again)
    finally:
        server.agent = answer
    assert simulations(folder) == simulations(unsharded), [p.read_text() for p in tmp_path.glob("slurm-*.out")]
    assert numbers(tmp_path, folder) == numbers(tmp_path, unsharded)
