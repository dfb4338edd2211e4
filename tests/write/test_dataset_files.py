"""Identical files stored once (jtau.dataset_files): a file missing from a J-tau folder is read
through the manifest from the present file with the same digest, by every reader."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from jtau import dataset_files
from jtau.domain import LocalizedDomain
from jtau.rules import load_rules
from jtau.write.check import check_files

ROOT = Path(__file__).resolve().parents[2]
TELECOM = ROOT / "data" / "domains" / "telecom"


def _folder(tmp_path: Path, files: dict[str, bytes]) -> Path:
    folder = tmp_path / "domain"
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    outputs = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
    (folder / "manifest.json").write_text(json.dumps({"outputs": outputs}))
    return folder


def test_a_missing_file_reads_as_the_present_file_with_its_digest(tmp_path):
    folder = _folder(tmp_path, {"a.json": b"[1]", "b.json": b"[1]", "c.json": b"[2]"})
    (folder / "b.json").unlink()
    assert dataset_files.locate(folder, "b.json") == folder / "a.json"
    assert dataset_files.read_bytes(folder, "b.json") == b"[1]"
    assert dataset_files.exists(folder, "b.json")


def test_a_file_the_manifest_does_not_pair_stays_missing(tmp_path):
    folder = _folder(tmp_path, {"a.json": b"[1]", "c.json": b"[2]"})
    (folder / "c.json").unlink()  # no other file has its digest
    assert dataset_files.locate(folder, "c.json") is None
    assert not dataset_files.exists(folder, "unknown.json")
    with pytest.raises(FileNotFoundError):
        dataset_files.read_bytes(folder, "c.json")


def test_stored_once_keeps_the_first_name_of_each_digest():
    assert dataset_files.stored_once({"tasks_full.json": "x", "tasks.json": "x", "db.toml": "y"}) == \
        {"db.toml": "y", "tasks.json": "x"}


def test_telecom_without_tasks_full_reads_and_checks_as_the_whole_folder(tmp_path):
    recorded = dataset_files.outputs(TELECOM)
    assert recorded["tasks_full.json"] == recorded["tasks.json"]  # as in tau2's source
    assert set(recorded) - set(dataset_files.stored_once(recorded)) == {"tasks_full.json"}
    folder = tmp_path / "telecom"
    shutil.copytree(TELECOM, folder, ignore=shutil.ignore_patterns("tasks_full.json"))
    rules = load_rules("telecom")
    read = LocalizedDomain.read(folder, rules)
    assert read.copies["tasks_full.json"] == (TELECOM / "tasks_full.json").read_bytes()
    files = {name: (TELECOM / name).read_bytes() for name in ("tasks.json", "tasks_full.json", "tasks_small.json")}
    assert check_files(folder, files) == []
    (folder / "tasks.json").unlink()  # neither copy: missing, for every reader
    assert check_files(folder, files)[:2] == [f"{folder / 'tasks.json'}: missing",
                                              f"{folder / 'tasks_full.json'}: missing"]


def test_dataset_digest_is_the_manifests():
    assert dataset_files.dataset_digest(TELECOM) == hashlib.sha256((TELECOM / "manifest.json").read_bytes()).hexdigest()
    assert dataset_files.dataset_digest(ROOT) is None


def test_the_runtime_loads_tasks_of_a_folder_that_stores_them_once(tmp_path):
    from jtau.runtime.overlay import LocalizedTasks

    folder = tmp_path / "telecom"
    shutil.copytree(TELECOM, folder, ignore=shutil.ignore_patterns("tasks_full.json"))
    tasks = type("Tasks", (LocalizedTasks,), {"folder": folder, "source": "telecom"})()
    source_tasks = json.loads((TELECOM / "tasks_full.json").read_bytes())
    assert len(tasks.get_tasks(None, file="tasks_full.json")) == len(source_tasks)
