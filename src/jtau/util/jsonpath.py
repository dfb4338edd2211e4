"""Dotted path patterns over JSON data, the vocabulary of the domain rules.

A pattern is dot-separated: a name matches that key, `*` matches every key of an object or
every item of a list, and a final `@key` addresses the *keys* of the object reached (tau2
keys users by their user id).  Examples:

    users.*.address.zip
    flights.*.dates.*.prices.*
    users@key
"""

from __future__ import annotations

import functools
from typing import Any

KEYS = "@key"


@functools.lru_cache(maxsize=1024)  # the rules' few patterns, each found in thousands of tasks
def split(pattern: str) -> tuple[str, ...]:
    parts = pattern.split(".")
    if parts[-1].endswith(KEYS) and parts[-1] != KEYS:
        parts[-1:] = [parts[-1][: -len(KEYS)], KEYS]
    return tuple(parts)


def find(data: Any, pattern: str | list[str] | tuple[str, ...]) -> list[tuple[tuple, Any, Any]]:
    """`(path, container, key)` of every value the pattern matches, in document order.

    For an `@key` pattern, `container` is the object and `key` each of its keys.  Built level
    by level (a list, not nested generators: the db patterns reach 200,000 values).
    """
    parts = split(pattern) if isinstance(pattern, str) else pattern
    frontier: list[tuple[tuple, Any]] = [((), data)]
    for head in parts[:-1]:
        frontier = _step(frontier, head)
    last = parts[-1]
    if last == KEYS:
        return [(path + (key,), node, key) for path, node in frontier if isinstance(node, dict) for key in list(node)]
    return _matches(frontier, last)


def _step(frontier: list[tuple[tuple, Any]], head: str) -> list[tuple[tuple, Any]]:
    """`(path, child)` of what `head` names in each node of `frontier`."""
    return [(path, container[key]) for path, container, key in _matches(frontier, head)]


def _matches(frontier: list[tuple[tuple, Any]], head: str) -> list[tuple[tuple, Any, Any]]:
    """`(path, container, key)` of what `head` names in each node of `frontier` (the common heads,
    `*` and a name, without a call per node: the db patterns visit 280,000 nodes)."""
    if head == "*":
        return [(path + (key,), node, key) for path, node in frontier
                for key in (list(node) if isinstance(node, dict) else
                            range(len(node)) if isinstance(node, list) else ())]
    if not head.isdigit():  # a name: only an object has it
        return [(path + (head,), node, head) for path, node in frontier if isinstance(node, dict) and head in node]
    return [(path + (key,), node, key) for path, node in frontier for key, _ in _children(node, head)]


def _children(node: Any, head: str):
    """(key, child) of the figures `head` in `node`: an object's key, or a list's item."""
    if isinstance(node, dict):
        return ((head, node[head]),) if head in node else ()
    if isinstance(node, list) and int(head) < len(node):
        return ((int(head), node[int(head)]),)
    return ()


def format_path(path: tuple) -> str:
    """`users.mia_li_3668.address.zip`, `[3].evaluation_criteria.actions[0]`."""
    out = ""
    for key in path:
        if isinstance(key, int):
            out += f"[{key}]"
        else:
            out += ("." if out else "") + str(key)
    return out or "$"


def rename_keys(container: dict, rename) -> None:
    """Rename every key of `container` in place, keeping the order of the keys."""
    items = [(rename(k), v) for k, v in container.items()]
    container.clear()
    container.update(items)
