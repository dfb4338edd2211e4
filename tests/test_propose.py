"""`jtau maps propose` fills gaps in the maps with entries a reviewer can accept."""

from __future__ import annotations

import re

from conftest import jtau


def test_propose_fills_missing_names_and_zips_and_localize_then_works(project, tmp_path):
    people = project / "entity_maps" / "people.yaml"
    people.write_text("\n".join(l for l in people.read_text().splitlines() if not l.startswith("  Kevin:")) + "\n")
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
