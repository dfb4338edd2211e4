"""`jtau release` and the installed mode: the release is the same bytes for the same checkout,
its card parses and names every domain, its checksums verify, the wheel and the release hold
the same dataset bytes, and the wheel alone (unpacked as pip installs it) runs and verifies
J-tau from any folder, refusing what would write into it."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from conftest import PROJECT, ROOT
from jtau import __version__, dataset_files
from jtau.domains import listed
from jtau.errors import InputError
from jtau.release.build import release_files, write_release

DATASET = "jtau/_dataset/"
DOMAINS = listed()
pytestmark = pytest.mark.xdist_group("release")  # one worker builds the release the tests share


@pytest.fixture(scope="session")
def release() -> dict[str, bytes]:
    return release_files(PROJECT)


@pytest.fixture(scope="session")
def wheel(release) -> zipfile.ZipFile:
    [name] = [n for n in release if n.endswith(".whl")]
    assert name == f"jtau-{__version__}-py3-none-any.whl"
    return zipfile.ZipFile(io.BytesIO(release[name]))


def test_a_release_is_the_same_bytes_every_time(release, tmp_path):
    assert release_files(PROJECT) == release
    write_release(tmp_path / "a", release)
    files = sorted(p.relative_to(tmp_path / "a").as_posix() for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files == sorted(release)


def test_the_checksums_cover_every_file_and_verify(release, tmp_path):
    lines = release["SHA256SUMS"].decode().splitlines()
    listed = {line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in lines}
    assert set(listed) == set(release) - {"SHA256SUMS"}
    assert all(hashlib.sha256(release[name]).hexdigest() == digest for name, digest in listed.items())
    write_release(tmp_path / "r", release)
    checked = subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=tmp_path / "r", capture_output=True,
                             text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_card_parses_and_names_every_domain_with_its_data(release):
    card = release["README.md"].decode()
    assert card.startswith("---\n")
    header = yaml.safe_load(card.split("---\n")[1])
    assert header["license"] == "mit" and header["language"] == ["ja", "en"] and header["pretty_name"]
    assert [c["config_name"] for c in header["configs"]] == list(DOMAINS)
    for config in header["configs"]:
        assert all(f["path"] in release for f in config["data_files"])
    manifest = json.loads(release["release.json"])
    for domain, digest in manifest["datasets"].items():
        assert digest in card and f"`{domain}`" in card
    assert "Sierra Research" in card and "@misc{jtau" in card and "2506.07982" in card


def test_the_wheel_and_the_release_hold_the_same_dataset_bytes(release, wheel):
    names = wheel.namelist()
    for domain in DOMAINS:
        released = {n.removeprefix(f"data/{domain}/"): d for n, d in release.items() if n.startswith(f"data/{domain}/")}
        prefix = f"{DATASET}data/domains/{domain}/"
        packed = {n.removeprefix(prefix): wheel.read(n) for n in names if n.startswith(prefix)}
        assert released == packed, domain
        committed = ROOT / "data" / "domains" / domain
        assert all((committed / n).read_bytes() == data for n, data in released.items())
    assert f"{DATASET}data/domains/telecom/tasks_full.json" not in names  # stored once: it is tasks.json
    assert "data/telecom/tasks_full.json" not in release
    for folder in ("entity_maps", "glossaries", "task_patches"):
        assert any(n.startswith(f"{DATASET}{folder}/") for n in names)
    assert {n for n in names if n.startswith(f"{DATASET}data/tm/")} == {f"{DATASET}data/tm/{d}.jsonl" for d in DOMAINS}


def test_the_wheel_is_a_valid_deterministic_wheel_without_tau2(wheel):
    infos = wheel.infolist()
    names = [i.filename for i in infos]
    dist = f"jtau-{__version__}.dist-info/"
    package = [n for n in names if not n.startswith(dist)]
    assert names[-1] == f"{dist}RECORD" and names[:len(package)] == package == sorted(package)
    assert all(i.date_time == (1980, 1, 1, 0, 0, 0) and i.external_attr >> 16 == 0o100644 for i in infos)
    record = wheel.read(f"{dist}RECORD").decode().splitlines()
    assert len(record) == len(names)
    for line in record[:-1]:
        path, digest, size = line.rsplit(",", 2)
        data = wheel.read(path)
        import base64
        assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert int(size) == len(data)
    metadata = wheel.read(f"{dist}METADATA").decode()
    assert f"Version: {__version__}\n" in metadata and "Requires-Dist: typer>=0.12\n" in metadata
    assert wheel.read(f"{dist}entry_points.txt") == b"[console_scripts]\njtau = jtau.cli:main\n\n"
    assert not [n for n in names if n.startswith("tau2/") or "/tau2/" in n or n.endswith((".pyc", ".whl"))]
    assert {"jtau/domains/airline/rules.yaml", "jtau/domains/airline/spec.yaml", "jtau/domains/tasks.schema.json",
            "jtau/domains/telecom/user_tools.ja.yaml", "jtau/runtime/tool_errors.ja.yaml"} <= set(names)
    assert {f"{dist}licenses/LICENSE", f"{dist}licenses/LICENSE-tau2-bench"} <= set(names)
    assert b"Copyright (c) 2025 Sierra Research" in wheel.read(f"{dist}licenses/LICENSE-tau2-bench")


def test_a_release_folder_that_holds_something_else_is_refused(release, tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(InputError, match="not empty and no jtau release"):
        write_release(tmp_path, release)
    assert (tmp_path / "mine.txt").read_text() == "keep me"


# --- the installed mode --------------------------------------------------------------------------

def test_the_project_root_order(tmp_path, monkeypatch):
    from jtau import project

    checkout, installed, elsewhere, found = (tmp_path / n for n in ("checkout", "installed", "elsewhere", "found"))
    for folder in (checkout, installed, found):
        (folder / "entity_maps").mkdir(parents=True)
    (found / "deep").mkdir()
    elsewhere.mkdir()
    monkeypatch.setattr(project, "editable_checkout", lambda: checkout)
    monkeypatch.setattr(project, "installed_root", lambda: installed)
    monkeypatch.setenv("JTAU_ROOT", str(elsewhere))
    monkeypatch.chdir(found / "deep")
    assert project.project_root() == elsewhere
    monkeypatch.delenv("JTAU_ROOT")
    assert project.project_root() == found.resolve()
    monkeypatch.chdir(elsewhere)
    assert project.project_root() == checkout
    (checkout / "entity_maps").rmdir()
    assert project.project_root() == installed and project.Project(installed).installed
    (installed / "entity_maps").rmdir()
    with pytest.raises(InputError, match="no jtau project found"):
        project.project_root()


@pytest.fixture(scope="session")
def installed(wheel, tmp_path_factory):
    """The wheel unpacked as pip installs a pure wheel (its files under site-packages): a
    folder to put first on PYTHONPATH, the venv's dependencies (tau2 ...) beside it."""
    site = tmp_path_factory.mktemp("site")
    wheel.extractall(site)
    return site


def installed_jtau(site: Path, *args, cwd: Path, cache: Path):
    env = {k: v for k, v in os.environ.items() if k != "JTAU_ROOT"}
    env.update(PYTHONPATH=str(site), JTAU_CACHE=str(cache), COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "jtau", *args], capture_output=True, text=True, env=env, cwd=cwd)


def test_the_installed_wheel_runs_from_any_folder_and_writes_nothing_into_itself(installed, tmp_path):
    before = {p: p.read_bytes() for p in installed.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    run = lambda *args: installed_jtau(installed, *args, cwd=tmp_path, cache=tmp_path / "cache")  # noqa: E731
    where = run("--version")
    assert where.stdout.strip() == f"jtau {__version__}"
    env = {**{k: v for k, v in os.environ.items() if k != "JTAU_ROOT"}, "PYTHONPATH": str(installed)}
    probe = subprocess.run([sys.executable, "-c", "import jtau.project as p; print(p.__file__, p.project_root())"],
                           capture_output=True, text=True, cwd=tmp_path, env=env)
    module, root = probe.stdout.split()
    assert module.startswith(str(installed)) and Path(root) == installed / "jtau" / "_dataset"
    validated = run("validate", "telecom")  # tasks_full.json read through the manifest
    assert validated.returncode == 0, validated.stderr[-1500:]
    verified = run("verify", "airline", "--task", "1", "--jobs", "1")
    assert verified.returncode == 0, verified.stderr[-1500:]
    again = run("localize", "airline", "--offline", "--out", str(tmp_path / "out"))
    assert again.returncode == 0, again.stderr[-1500:]
    assert all((tmp_path / "out" / "airline" / n).read_bytes() == dataset_files.read_bytes(
        installed / "jtau" / "_dataset" / "data" / "domains" / "airline", n)
        for n in dataset_files.outputs(tmp_path / "out" / "airline"))
    arm = run("localize", "airline", "--arm", "en")
    assert arm.returncode == 0 and str(tmp_path / "cache") in arm.stdout, arm.stderr[-1500:]
    after = {p: p.read_bytes() for p in installed.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert after == before


@pytest.mark.parametrize("args,needs", [
    (("localize", "airline"), "jtau localize"),
    (("tm", "import", "airline", "answers.jsonl"), "jtau tm import"),
    (("maps", "propose", "airline", "--write"), "jtau maps propose --write"),
    (("review", "airline"), "jtau review"),
])
def test_commands_that_write_into_the_project_refuse_the_installed_j_tau(installed, tmp_path, args, needs):
    (tmp_path / "answers.jsonl").write_text("")
    result = installed_jtau(installed, *args, cwd=tmp_path, cache=tmp_path / "cache")
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {needs} writes into a jtau checkout") and "read-only" in line


def test_a_release_is_built_from_a_checkout_not_from_the_installed_wheel(installed, tmp_path):
    result = installed_jtau(installed, "release", "--out", str(tmp_path / "r"), cwd=tmp_path, cache=tmp_path / "cache")
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and "jtau release builds from a jtau checkout" in line
    assert not (tmp_path / "r").exists()
