"""The YAML files people edit: line numbers for errors, and a parse cache keyed by content."""

from __future__ import annotations

from jtau.util.yamlfile import _cache_file, load_yaml


def test_the_parse_cache_follows_the_content_and_survives_damage(tmp_path, monkeypatch):
    monkeypatch.setenv("JTAU_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "map.yaml"
    path.write_text("people:\n  Emma: 恵美\n  Ava: 彩\n")
    first = load_yaml(path)
    cached = _cache_file(path.read_text())
    assert cached.is_file() and first.where(("people", "Ava")) == f"{path}:3"
    again = load_yaml(path)  # from the cache: same data, same lines
    assert again.data == first.data and again.lines == first.lines
    path.write_text("people:\n  Emma: 恵美\n\n  Ava: 亜矢\n")  # an edit is parsed anew
    edited = load_yaml(path)
    assert edited.data["people"]["Ava"] == "亜矢" and edited.where(("people", "Ava")) == f"{path}:4"
    _cache_file(path.read_text()).write_bytes(b"damaged")
    assert load_yaml(path).data == edited.data


def test_the_cache_can_be_switched_off(tmp_path, monkeypatch):
    monkeypatch.setenv("JTAU_CACHE", "off")
    path = tmp_path / "map.yaml"
    path.write_text("a: 1\n")
    assert _cache_file(path.read_text()) is None and load_yaml(path).data == {"a": 1}
