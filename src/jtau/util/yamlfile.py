"""Read the YAML files people edit (maps, glossary, patches) with line numbers for errors.

ruamel.yaml keeps the position of every key, so a problem found after parsing (a missing
field, a duplicate target) can still be reported as `entity_maps/people.yaml:42`.  What enters
is bounded (jtau/util/limits.py): the file's size, its nesting, no aliases (`*name`: no file of jtau
needs them, and expanded they make a few lines gigabytes), text that is text.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import pickle
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.scanner import RoundTripScanner, ScannerError

from jtau.errors import InputError
from jtau.util.limits import MAX_DEPTH, MAX_YAML_BYTES, decode, not_text, odd_number, read_input


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


CACHE_VERSION = b"jtau-yaml-2"  # 2: parses of files now refused (aliases, depth) are not reused


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
    text = decode(path, read_input(path, MAX_YAML_BYTES, "YAML file"))
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


# what a YAML value of another type is, as a message says it
OTHER_TYPES = ((bytes, "binary data (!!binary)"), (datetime.date, "a date"),
               (tuple, "a list or a mapping as a key"), (AbstractSet, "a set (!!set)"))


class _NoAliases(Composer):
    """ruamel's composer, refusing an alias where it stands (its expansion is never built)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.parser.check_event(AliasEvent):
            event = self.parser.peek_event()
            raise ComposerError(None, None, f"an alias (*{event.anchor}): jtau's YAML files hold no aliases, "
                                "write the value out", event.start_mark)
        return super().compose_node(parent, index)


class _FlowBounded(RoundTripScanner):
    """ruamel's scanner, refusing flow collections (`[[[...`) nested deeper than MAX_DEPTH where
    the one too many opens: the scanner reads a whole flow collection ahead before the composer
    sees a level, in time growing with the square of the nesting."""

    def fetch_flow_collection_start(self, TokenClass: Any, to_push: str) -> None:
        if self.flow_level >= MAX_DEPTH:
            raise ScannerError(None, None, "maximum depth", self.reader.get_mark())
        super().fetch_flow_collection_start(TokenClass, to_push)


def _parse(path: Path, text: str) -> YamlDoc:
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    yaml.max_depth = MAX_DEPTH
    yaml.Composer, yaml.Scanner = _NoAliases, _FlowBounded
    try:
        raw = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark else ""
        problem = exc.problem or exc.context or "malformed YAML"
        if problem.startswith("maximum depth"):
            problem = f"nested deeper than {MAX_DEPTH} levels"
        raise InputError(f"{path}{line}: {problem}") from None
    except RecursionError:  # the scanner's own recursion, before the composer counts levels
        raise InputError(f"{path}: nested deeper than {MAX_DEPTH} levels") from None
    except Exception as exc:  # ruamel raises a few non-marked errors (duplicate keys, ...)
        raise InputError(f"{path}: {exc}") from None
    doc = YamlDoc(path=path, data=None)
    doc.data = _plain(raw, (), doc.lines, path)
    return doc


def _plain(node: Any, loc: tuple, lines: dict[tuple, int], path: Path, line: int = 0) -> Any:
    """Plain data of ruamel's nodes, each key's and item's line noted; a text that is no text
    (a control character written as an escape, a lone surrogate) or a value of another type
    (`!!binary`, a date, a set, NaN) is refused with its line."""
    if isinstance(node, CommentedMap):
        out = {}
        for key, value in node.items():
            try:
                lines[loc + (key,)] = node.lc.key(key)[0] + 1
            except (KeyError, TypeError):
                pass
            at = lines.get(loc + (key,), line)
            out[_plain(key, loc, lines, path, at)] = _plain(value, loc + (key,), lines, path, at)
        return out
    if isinstance(node, CommentedSeq):
        out_list = []
        for index, value in enumerate(node):
            try:
                lines[loc + (index,)] = node.lc.item(index)[0] + 1
            except (KeyError, TypeError, IndexError):
                pass
            out_list.append(_plain(value, loc + (index,), lines, path, lines.get(loc + (index,), line)))
        return out_list
    where = f"{path}{f':{line}' if line else ''}"
    if isinstance(node, str):
        why = not_text(node)
        if why:
            raise InputError(f"{where}: {why}: not text")
        return str(node)
    if node is None or isinstance(node, bool):
        return node
    if isinstance(node, (int, float)):  # ruamel's ScalarInt, ScalarFloat: plain numbers JSON can hold
        plain = int(node) if isinstance(node, int) else float(node)
        shown = odd_number(plain)
        if not shown:
            return plain
    else:
        shown = next((what for kind, what in OTHER_TYPES if isinstance(node, kind)), f"a {type(node).__name__} value")
    raise InputError(f"{where}: {shown}: jtau's YAML files hold text, numbers, true/false, null, lists and mappings")
