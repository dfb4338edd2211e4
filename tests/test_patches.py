"""Task repairs bring the 26.3 tasks to upstream's (tau2-bench 1.0.1's), and fail loudly."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import NO_UPSTREAM, PROJECT, ROOT, UPSTREAM, jtau
from jtau.errors import InputError
from jtau.patches import apply_patches, load_patches
from jtau.pipeline import localize

needs_upstream = pytest.mark.skipif(UPSTREAM is None, reason=NO_UPSTREAM)


def own_repairs(localization) -> set[str]:
    """Tasks J-tau repairs beyond upstream (its bilingual review)."""
    return {i for p in localization.repairs.patches if p.spec.reference.startswith("J-tau review")
            for i in p.spec.task_ids}


@needs_upstream
@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_repaired_26_3_tasks_are_upstreams_tasks(domain, airline, retail, domains_dir):
    """reward_basis, issues[] and retail task 21's get_item_details included: one J-tau for both runtimes."""
    localization = {"airline": airline, "retail": retail}[domain]
    upstream = {t["id"]: t for t in json.loads((UPSTREAM / domain / "tasks.json").read_text())}
    original = {t["id"]: t for t in json.loads((domains_dir / domain / "tasks.json").read_text())}
    own = own_repairs(localization)
    assert own == ({"8"} if domain == "airline" else set())
    for task in localization.source.tasks:
        if task["id"] not in own:
            assert task == upstream[task["id"]], task["id"]
    if "reward_basis" not in original["0"]["evaluation_criteria"]:  # the 26.3 source: every task was repaired
        assert all(task != original[task["id"]] for task in localization.source.tasks)
    assert any(a["name"] == "get_item_details" for a in retail.source.tasks[21]["evaluation_criteria"]["actions"])


@needs_upstream
@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_26_3_and_upstream_localize_to_the_same_bytes(domain, airline, retail, tmp_path, domains_dir):
    """The committed J-tau files, manifest included, whether localized from 26.3 (with the repairs)
    or from tau2-bench 1.0.1's tasks (which carry them: recognised and skipped)."""
    ours = {"airline": airline, "retail": retail}[domain]
    source = tmp_path / "domains" / domain
    shutil.copytree(domains_dir / domain, source)
    shutil.copy(UPSTREAM / domain / "tasks.json", source / "tasks.json")
    theirs = localize(domain, PROJECT, source.parent)
    assert len(theirs.repairs.report.applied) == len(own_repairs(ours))
    assert theirs.outputs == ours.outputs
    assert theirs.outputs["tasks.json"] == (ROOT / "data" / "domains" / domain / "tasks.json").read_bytes()


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
    # a repair written for another source: neither the tested value (26.3) nor the repaired one (1.0.1) is there
    path.write_text(path.read_text().replace("value: '1985-04-04'", "value: '1999-01-01'")
                    .replace("value: '1981-05-26'", "value: '1999-01-02'"))
    result = jtau("localize", "airline", "--out", str(tmp_path / "out"), root=project)
    assert result.returncode == 2
    assert "task_035.yaml:" in result.stderr and "test failed" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_stale_retail_repair_fails_with_its_line(project, tmp_path):
    path = project / "task_patches" / "retail" / "task_012.yaml"
    path.write_text(path.read_text().replace("email: mia.garcia2723@example.com", "email: mia.garcia2724@example.com"))
    result = jtau("localize", "retail", "--out", str(tmp_path / "out"), root=project)
    assert result.returncode == 2
    assert "task_012.yaml:" in result.stderr and "test failed" in result.stderr
    assert not (tmp_path / "out").exists()


def test_one_repair_over_many_tasks_is_recognised_where_the_source_has_it(tmp_path, airline):
    (tmp_path / "basis.yaml").write_text('tasks: ["0", "1"]\nreason: r\nreference: x\npatch:\n'
                                         '  - {op: add, path: /evaluation_criteria/reward_basis, value: [DB]}\n')
    tasks = json.loads(json.dumps(airline.source.tasks))
    for task in tasks[:2]:
        task["evaluation_criteria"].pop("reward_basis")
    assert apply_patches(tasks, load_patches(tmp_path)).applied == ["basis.yaml"]
    assert [t["evaluation_criteria"]["reward_basis"] for t in tasks[:2]] == [["DB"], ["DB"]]
    assert apply_patches(tasks, load_patches(tmp_path)).already == ["basis.yaml"]
    (tmp_path / "basis.yaml").write_text('task: "0"\ntasks: ["1"]\nreason: r\nreference: x\npatch: []\n')
    with pytest.raises(InputError) as refused:
        load_patches(tmp_path)
    assert "basis.yaml" in refused.value.message and "either task" in " ".join(refused.value.details)
