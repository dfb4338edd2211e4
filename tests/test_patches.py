"""Task repairs bring the 26.3 airline tasks to the upstream fixes, and fail loudly."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import ROOT, UPSTREAM, jtau
from jtau.errors import InputError
from jtau.patches import apply_patches, load_patches
from jtau.pipeline import localize

needs_upstream = pytest.mark.skipif(not UPSTREAM.is_dir(), reason="shared/tau2-upstream is not beside this checkout")


def without(task: dict, *fields) -> dict:
    task = json.loads(json.dumps(task))
    for name in fields:
        task["evaluation_criteria"].pop(name, None)
    task.pop("issues", None)
    return task


@needs_upstream
def test_each_patched_task_equals_the_upstream_task(airline, domains_dir):
    upstream = {t["id"]: t for t in json.loads((UPSTREAM / "airline" / "tasks.json").read_text())}
    original = {t["id"]: t for t in json.loads((domains_dir / "airline" / "tasks.json").read_text())}
    patched_ids = {i for p in airline.repairs.patches if p.spec.task for i in p.spec.task_ids}
    own = {p.spec.task for p in airline.repairs.patches if p.spec.reference.startswith("J-tau review")}
    assert len(patched_ids) == len(airline.repairs.report.applied) == 30 and own == {"8"}
    for task in airline.source.tasks:
        if task["id"] not in own:  # J-tau's own repairs go beyond upstream
            assert without(task, "reward_basis") == without(upstream[task["id"]], "reward_basis"), task["id"]
        assert (task != original[task["id"]]) == (task["id"] in patched_ids)


@needs_upstream
def test_patched_26_3_localizes_to_the_localized_upstream(airline, tmp_path, domains_dir):
    source = tmp_path / "domains" / "airline"
    shutil.copytree(domains_dir / "airline", source)
    shutil.copy(UPSTREAM / "airline" / "tasks.json", source / "tasks.json")
    upstream = localize("airline", ROOT, source.parent)
    assert len(upstream.repairs.report.applied) == 1 and len(upstream.repairs.report.already) == 29
    ours = json.loads(airline.outputs["tasks.json"])
    theirs = json.loads(upstream.outputs["tasks.json"])
    assert [without(t, "reward_basis") for t in ours] == [without(t, "reward_basis") for t in theirs]


def test_every_patch_has_a_reason_and_a_reference(airline, retail):
    for patch in [*airline.repairs.patches, *retail.repairs.patches]:
        assert len(patch.spec.reason) > 40 and "TODO" not in patch.spec.reason, patch.path.name
        assert "tau3-bench 1.0.0" in patch.spec.reference or patch.spec.reference.startswith("J-tau review")


def write_patch(folder, text):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "task_001.yaml").write_text(text)


def test_a_replace_without_a_test_is_refused(tmp_path):
    write_patch(tmp_path, 'task: "1"\nreason: r\nreference: x\npatch:\n'
                          '  - {op: replace, path: /description/purpose, value: new}\n')
    with pytest.raises(InputError) as refused:
        load_patches(tmp_path)
    assert "task_001.yaml:5: replace of /description/purpose needs a `test`" in refused.value.message


def test_a_patch_for_a_changed_source_fails_with_its_line(tmp_path, airline):
    write_patch(tmp_path, 'task: "1"\nreason: r\nreference: x\npatch:\n'
                          '  - {op: test, path: /description/purpose, value: not what the source says}\n'
                          '  - {op: replace, path: /description/purpose, value: new}\n')
    tasks = json.loads(json.dumps(airline.source.tasks))
    with pytest.raises(InputError) as failed:
        apply_patches(tasks, load_patches(tmp_path))
    assert "task_001.yaml:5: test failed: task 1 /description/purpose" in failed.value.message


def test_a_broken_patch_stops_the_command_with_exit_2(project, tmp_path):
    path = project / "task_patches" / "airline" / "task_035.yaml"
    path.write_text(path.read_text().replace("value: '1985-04-04'", "value: '1999-01-01'"))
    result = jtau("localize", "airline", "--out", str(tmp_path / "out"), root=project)
    assert result.returncode == 2
    assert "task_035.yaml:" in result.stderr and "test failed" in result.stderr
    assert not (tmp_path / "out").exists()


@needs_upstream
def test_retail_patched_tasks_equal_upstream_but_task_21_keeps_26_3_tools(retail, domains_dir):
    upstream = {t["id"]: t for t in json.loads((UPSTREAM / "retail" / "tasks.json").read_text())}
    original = {t["id"]: t for t in json.loads((domains_dir / "retail" / "tasks.json").read_text())}
    patched_ids = {i for p in retail.repairs.patches if p.spec.task for i in p.spec.task_ids}
    assert len(patched_ids) == len(retail.repairs.report.applied) == 52
    for task in retail.source.tasks:
        ours, theirs = without(task, "reward_basis"), without(upstream[task["id"]], "reward_basis")
        if task["id"] == "21":  # get_item_details is not a tau2 26.3 tool: 26.3's actions stay
            assert ours["evaluation_criteria"]["actions"] == original["21"]["evaluation_criteria"]["actions"]
            assert ours["evaluation_criteria"]["nl_assertions"] == theirs["evaluation_criteria"]["nl_assertions"]
            assert any(a["name"] == "get_item_details" for a in theirs["evaluation_criteria"]["actions"])
            continue
        assert ours == theirs, task["id"]
        assert (task != original[task["id"]]) == (task["id"] in patched_ids)


def test_a_stale_retail_repair_fails_with_its_line(project, tmp_path):
    path = project / "task_patches" / "retail" / "task_012.yaml"
    path.write_text(path.read_text().replace("email: mia.garcia2723@example.com", "email: mia.garcia2724@example.com", 1))
    result = jtau("localize", "retail", "--out", str(tmp_path / "out"), root=project)
    assert result.returncode == 2
    assert "task_012.yaml:" in result.stderr and "test failed" in result.stderr
    assert not (tmp_path / "out").exists()
