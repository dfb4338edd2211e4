"""Task repairs: RFC 6902 JSON Patch files applied to the *source* tasks before localizing.

    task_patches/<domain>/<name>.yaml:
        task: "7"                  the task id (or `tasks: ["0", "1", ...]`: the same patch for each)
        reason: why the task is wrong and what the repair does
        reference: where the fix comes from
        patch: [ {op: test, path: ..., value: ...}, {op: replace, ...}, ... ]

Every `replace` and `remove` must follow a `test` of the same path, so a repair fails loudly
when the source value it repairs has changed.  A source that already carries a repair (the
upstream tasks, say) is recognised: when every test fails but every replaced or added value
is already in place (or a patch of `add`s only finds its values there), the patch is reported
as already applied and skipped.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonpatch
from jsonpointer import JsonPointerException, resolve_pointer
from pydantic import BaseModel, ConfigDict, model_validator

from jtau.errors import InputError
from jtau.util.limits import key_no_text
from jtau.util.yamlfile import YamlDoc, load_yaml


class PatchFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task: str | None = None
    tasks: list[str] | None = None
    reason: str
    reference: str
    patch: list[dict[str, Any]]

    @model_validator(mode="after")
    def _one_target(self) -> "PatchFile":
        if (self.task is None) == (self.tasks is None):
            raise ValueError("give either task (one id) or tasks (a list of ids)")
        return self

    @property
    def task_ids(self) -> list[str]:
        if self.task is not None:
            return [self.task]
        assert self.tasks is not None  # _one_target: either task or tasks
        return list(self.tasks)


@dataclass
class TaskPatch:
    path: Path
    doc: YamlDoc
    spec: PatchFile
    digest: str

    def where(self, index: int) -> str:
        return self.doc.where(("patch", index))


@dataclass
class PatchReport:
    applied: list[str]
    already: list[str]


def load_patches(folder: Path) -> list[TaskPatch]:
    if not folder.is_dir():
        return []
    patches = []
    for path in sorted(folder.glob("*.yaml")):
        doc = load_yaml(path)
        spec = doc.parse(PatchFile)
        patch = TaskPatch(path, doc, spec, hashlib.sha256(path.read_bytes()).hexdigest())
        _check_guarded(patch)
        patches.append(patch)
    return patches


def _check_guarded(patch: TaskPatch) -> None:
    tested: set[str] = set()
    for index, op in enumerate(patch.spec.patch):
        kind, path = op.get("op"), op.get("path")
        if kind not in ("test", "replace", "remove", "add", "move", "copy") or not isinstance(path, str):
            raise InputError(f"{patch.where(index)}: not an RFC 6902 operation: {op}")
        if found := key_no_text(op.get("value")):
            raise InputError(f"{patch.where(index)}: a key {found[0][-1]!r} of {path}'s value is no text: "
                             "JSON's keys are (quote it)")
        if kind == "test":
            tested.add(path)
        elif kind in ("replace", "remove") and path not in tested:
            raise InputError(f"{patch.where(index)}: {kind} of {path} needs a `test` of that path before it")
    for index, op in enumerate(patch.spec.patch):
        try:
            jsonpatch.JsonPatch([op])
        except (jsonpatch.InvalidJsonPatch, JsonPointerException, TypeError, AttributeError) as exc:
            raise InputError(f"{patch.where(index)}: not an RFC 6902 operation: {exc}") from None


def _holds(task: dict, op: dict) -> bool:
    try:
        return resolve_pointer(task, op["path"]) == op["value"]
    except (JsonPointerException, KeyError, IndexError, TypeError):
        return False


def apply_patches(tasks: list[dict], patches: list[TaskPatch]) -> PatchReport:
    """Apply every patch to its task(s) in place; errors name the patch file and line."""
    by_id = {str(task["id"]): task for task in tasks}
    report = PatchReport([], [])
    for patch in patches:
        outcomes = {_apply(patch, by_id, task_id) for task_id in patch.spec.task_ids}
        (report.applied if "applied" in outcomes else report.already).append(patch.path.name)
    return report


def _apply(patch: TaskPatch, by_id: dict[str, dict], task_id: str) -> str:
    """"applied" or "already" for one task of a patch."""
    task = by_id.get(task_id)
    if task is None:
        raise InputError(f"{patch.path}: task {task_id!r} is not in the source tasks")
    ops = patch.spec.patch
    failed = [i for i, op in enumerate(ops) if op["op"] == "test" and not _holds(task, op)]
    tests = [i for i, op in enumerate(ops) if op["op"] == "test"]
    changes = [op for op in ops if op["op"] in ("replace", "add")]
    if failed == tests and changes and all(_holds(task, op) for op in changes) \
            and (failed or all(op["op"] == "add" for op in ops)):
        return "already"
    if failed:
        op = ops[failed[0]]
        raise InputError(f"{patch.where(failed[0])}: test failed: task {task_id} {op['path']} is no longer "
                         "the value this repair was written for; the source has changed, review the repair")
    try:
        jsonpatch.apply_patch(task, ops, in_place=True)
    except (jsonpatch.JsonPatchException, JsonPointerException) as exc:
        raise InputError(f"{patch.path}: cannot apply to task {task_id}: {exc}") from None
    return "applied"
