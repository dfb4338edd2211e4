"""Read the YAML files people edit (maps, glossary, patches) with line numbers for errors.

ruamel.yaml keeps the position of every key, so a problem found after parsing (a missing
field, a duplicate target) can still be reported as `entity_maps/people.yaml:42`.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError

from jtau.errors import InputError


@dataclass
class YamlDoc:
    """Plain data of a YAML file plus the line (1-based) of every key and item."""

    path: Path
    data: Any
    lines: dict[tuple, int] = field(default_factory=dict)

    def where(self, loc: tuple = ()) -> str:
        """`file:line` of the deepest known position on `loc`."""
        loc = tuple(loc)
        while loc and loc not in self.lines:
            loc = loc[:-1]
        line = self.lines.get(loc)
        return f"{self.path}:{line}" if line else str(self.path)

    def parse(self, model: type[BaseModel], loc: tuple = ()):
        """Validate `data` (or the part at `loc`) with a pydantic model; errors name lines."""
        data = self.data
        for key in loc:
            data = data[key]
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            details = [
                f"{self.where(loc + tuple(e['loc']))}: {'.'.join(map(str, loc + tuple(e['loc'])))}: {e['msg']}"
                for e in exc.errors()
            ]
            raise InputError(f"{self.path}: invalid content", details) from None


CACHE_VERSION = b"jtau-yaml-1"


def _cache_file(text: str) -> Path | None:
    """Where the parse of this exact content is kept ($JTAU_CACHE, else ~/.cache/jtau), or None
    when caching is off (JTAU_CACHE=off)."""
    setting = os.environ.get("JTAU_CACHE")
    if setting == "off":
        return None
    folder = Path(setting) if setting else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "jtau"
    digest = hashlib.sha256(CACHE_VERSION + text.encode("utf-8")).hexdigest()
    return folder / "yaml" / f"{digest}.pickle"


def load_yaml(path: Path) -> YamlDoc:
    """Parse a YAML file people edit, with line numbers.  ruamel.yaml is slow on the big maps,
    so a parse is cached by the file's content (a changed file is parsed again; a cache that
    cannot be read or written is ignored)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    cache = _cache_file(text)
    if cache is not None and cache.is_file():
        try:
            data, lines = pickle.loads(cache.read_bytes())
            return YamlDoc(path=path, data=data, lines=lines)
        except Exception:  # a damaged cache entry: parse again
            pass
    doc = _parse(path, text)
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            temporary = cache.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_bytes(pickle.dumps((doc.data, doc.lines), protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(temporary, cache)
        except OSError:
            pass
    return doc


def _parse(path: Path, text: str) -> YamlDoc:
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        raw = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark else ""
        problem = exc.problem or exc.context or "malformed YAML"
        raise InputError(f"{path}{line}: {problem}") from None
    except Exception as exc:  # ruamel raises a few non-marked errors (duplicate keys, ...)
        raise InputError(f"{path}: {exc}") from None
    doc = YamlDoc(path=path, data=None)
    doc.data = _plain(raw, (), doc.lines)
    return doc


def _plain(node: Any, loc: tuple, lines: dict[tuple, int]) -> Any:
    if isinstance(node, CommentedMap):
        out = {}
        for key, value in node.items():
            try:
                lines[loc + (key,)] = node.lc.key(key)[0] + 1
            except (KeyError, TypeError):
                pass
            out[key] = _plain(value, loc + (key,), lines)
        return out
    if isinstance(node, CommentedSeq):
        out_list = []
        for index, value in enumerate(node):
            try:
                lines[loc + (index,)] = node.lc.item(index)[0] + 1
            except (KeyError, TypeError, IndexError):
                pass
            out_list.append(_plain(value, loc + (index,), lines))
        return out_list
    if isinstance(node, str):
        return str(node)
    return node
