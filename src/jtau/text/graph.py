"""Graphviz workflow diagrams (telecom's `workflows/*.dot`): only the `label="..."` strings
are text; node ids, attributes and layout stay.  A label's `\\n` line breaks become spaces
for translation (a label is one sentence) and the Japanese label is written on one line."""

from __future__ import annotations

import re

LABEL = re.compile(r'label="((?:[^"\\]|\\.)*)"')


def labels(graph: str) -> list[str]:
    """The label texts of a graph, in order, as text to translate."""
    return [match[1].replace("\\n", " ").replace('\\"', '"') for match in LABEL.finditer(graph)]


def label_lines(graph: str) -> list[int]:
    """The line (1-based) of each label of a graph, in order."""
    return [graph.count("\n", 0, match.start()) + 1 for match in LABEL.finditer(graph)]


def with_labels(graph: str, texts: list[str]) -> str:
    """The graph with its labels replaced, in order, by `texts`."""
    replacements = iter(texts)
    return LABEL.sub(lambda m: 'label="' + next(replacements).replace('"', '\\"') + '"', graph)
