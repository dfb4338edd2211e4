"""Source discovery and both task formats."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jtau.pipeline import localize
from jtau.rules import load_rules
from jtau.source import load_domain

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT.parent / "shared" / "tau2-upstream"


def test_env_var_and_domain_folder_are_accepted(domains_dir, monkeypatch):
    rules = load_rules("airline")
    monkeypatch.setenv("JTAU_SOURCE", str(domains_dir))
    assert load_domain(rules).path == domains_dir / "airline"
    # --source may also name the domain folder itself
    assert load_domain(rules, domains_dir / "airline").path == domains_dir / "airline"


@pytest.mark.skipif(not UPSTREAM.is_dir(), reason="shared/tau2-upstream is not beside this checkout")
def test_upstream_task_format_localizes(tmp_path, domains_dir):
    source = tmp_path / "domains" / "airline"
    shutil.copytree(domains_dir / "airline", source)
    shutil.copy(UPSTREAM / "airline" / "tasks.json", source / "tasks.json")
    result = localize("airline", ROOT, source.parent)
    assert result.report.errors == []
    tasks = json.loads(result.outputs["tasks.json"])
    assert all("reward_basis" in t["evaluation_criteria"] for t in tasks)
    task2 = next(t for t in tasks if t["id"] == "2")
    # the upstream text says "from sf to ny": aliases of San Francisco and New York
    reason = task2["user_scenario"]["instructions"]["reason_for_call"]
    assert "北九州" in reason and "関西" in reason and " sf " not in reason
