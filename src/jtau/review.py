"""`jtau review DOMAIN`: side-by-side review material, one static HTML page per domain.

For the policy (per section) and for every task (per free-text field): the English source
(with task repairs applied) beside the Japanese output, the entity swaps made in it, the
memory status of each segment (draft, reviewed, ...), and the QA flags of validation.  A
task's repair, if any, is shown with its reason.  Also: memory status counts and the
structured swaps of the task's tool calls.  No script, no external asset: it opens from disk.
"""

from __future__ import annotations

import html
import json
from collections import Counter

from jtau.jsonpath import format_path
from jtau.listing import joined
from jtau.pipeline import Localization
from jtau.text.fields import Field
from jtau.text.template import Template
from jtau.translate.engine import needs_translation

STYLE = """
body{font-family:system-ui,'Hiragino Sans','Noto Sans CJK JP',sans-serif;margin:2em;max-width:1400px;color:#222}
h1{font-size:1.6em} h2{margin-top:2em;border-bottom:2px solid #ccc} h3{margin-top:1.5em}
table{border-collapse:collapse;width:100%;table-layout:fixed;margin:.5em 0}
td,th{border:1px solid #ddd;padding:.4em .6em;vertical-align:top;white-space:pre-wrap;word-wrap:break-word}
.f{width:8em}
th{background:#f4f4f4;text-align:left} td.f{color:#555;font-size:.9em}
.swap{font-size:.85em;color:#444} .flag{color:#a40;font-size:.9em} .ok{color:#080}
.st{font-size:.75em;padding:0 .3em;border-radius:3px;background:#eee;margin-left:.3em}
.draft{background:#ffe9a8} .reviewed{background:#c8f0c8} .machine{background:#d8e4ff} .missing{background:#f8c8c8}
.reason{background:#f7f7ff;border-left:4px solid #88a;padding:.5em 1em}
nav{display:flex;flex-wrap:wrap;gap:.2em .6em}
"""


def _e(text) -> str:
    return html.escape(str(text))


class Review:
    def __init__(self, result: Localization):
        self.r = result
        self.locale = result.maps.locale.locale
        self.all_flags = [*result.report.errors, *result.report.warnings]

    def flags(self, where: str) -> str:
        """The validation lines about `where` (`file: path` or `file:line`), as HTML."""
        return "".join(f'<div class="flag">⚠ {_e(line[len(where) + 2:])}</div>'
                       for line in self.all_flags if line.startswith(where + ": "))

    def status(self, piece: Template, kind: str) -> str:
        entry = self.r.tm.entries.get(piece.key(self.locale, kind))
        return entry.status if entry else "missing"

    def badges(self, field: Field) -> str:
        statuses = Counter(self.status(p, field.kind) for p in field.pieces
                           if isinstance(p, Template) and needs_translation(p))
        return "".join(f'<span class="st {s}">{s} {n}</span>' for s, n in sorted(statuses.items()))

    def swaps(self, field: Field) -> list[str]:
        out = []
        for piece in field.pieces:
            if isinstance(piece, Template):
                for _, entity in piece.entities:
                    rendered = self.r.text.renderer.entity(entity)
                    if rendered != entity.surface:
                        out.append(f"{entity.surface} → {rendered}")
        return list(dict.fromkeys(out))

    def field_row(self, label: str, source: str, field: Field) -> str:
        swaps = self.swaps(field)
        extra = (f'<div class="swap">{_e(", ".join(swaps))}</div>' if swaps else "") + self.flags(
            f"{field.file}: {format_path(field.path)}")
        return (f'<tr><td class="f">{_e(label)}{self.badges(field)}</td><td>{_e(source)}</td>'
                f'<td>{_e(field.container[field.key])}{extra}</td></tr>')

    def policy(self) -> str:
        return "".join(self.policy_file(i, name) for i, name in enumerate(self.r.rules.files.policy_files))

    def policy_file(self, index: int, name: str) -> str:
        field = next(f for f in self.r.text.fields if f.file == name)
        out_lines = self.r.domain.policies[name].split("\n")
        anchor = "policy" if index == 0 else f"policy{index}"
        rows = []
        for number, (en, ja) in enumerate(zip(self.r.source.policies[name].split("\n"), out_lines), 1):
            if en.startswith("#"):
                rows.append(f'<tr><th colspan="3" id="{anchor}-{number}">{_e(ja)}　/　{_e(en.lstrip("# "))}</th></tr>')
            elif en.strip():
                flag = self.flags(f"{name}:{number}")
                rows.append(f'<tr><td class="f">{number}</td><td>{_e(en)}</td><td>{_e(ja)}{flag}</td></tr>')
        return (f'<h2 id="{anchor}">{_e(name)} {self.badges(field)}</h2><table><tr><th class="f">line</th>'
                f'<th>English</th><th>日本語</th></tr>{"".join(rows)}</table>')

    def task(self, index: int, source: dict, output: dict) -> str:
        fields = [f for f in self.r.text.fields if f.file == self.r.rules.files.tasks and f.path[0] == index]
        rows = []
        for f in fields:
            label = format_path(f.path[1:]).replace("user_scenario.instructions.", "").replace("evaluation_criteria.", "")
            rows.append(self.field_row(label, _get(source, f.path[1:]), f))
        repair = "".join(f'<div class="reason"><b>Repaired</b> ({_e(p.path.name)}): {_e(p.spec.reason)}</div>'
                         for p in self.r.repairs.patches if str(source["id"]) in p.spec.task_ids)
        actions = self.action_swaps(source, output)
        return (f'<h2 id="task-{_e(source["id"])}">Task {_e(source["id"])}</h2>{repair}'
                f'<table><tr><th class="f">field</th><th>English</th><th>日本語</th></tr>{"".join(rows)}</table>'
                + (f'<h3>Tool calls: values swapped</h3><div class="swap">{_e(", ".join(actions))}</div>' if actions else ""))

    def groups(self) -> dict[int, list[str]]:
        """Tasks with the same text are shown once (telecom: 2,285 tasks from a few scenarios):
        first task index -> ids of the others."""
        first: dict[tuple, int] = {}
        out: dict[int, list[str]] = {}
        texts: dict[int, list[str]] = {}
        for f in self.r.text.fields:
            if f.file == self.r.rules.files.tasks:
                texts.setdefault(f.path[0], []).append(str(_get(self.r.source.tasks[f.path[0]], f.path[1:])))
        for index, task in enumerate(self.r.source.tasks):
            key = tuple(texts.get(index, [])) or (index,)
            if key in first:
                out[first[key]].append(str(task["id"]))
            else:
                first[key] = index
                out[index] = []
        return out

    @staticmethod
    def same_text(others: list[str]) -> str:
        if not others:
            return ""
        listed = joined(others, 8)
        return f'<p class="reason">Same text in {len(others)} more tasks: {_e(listed)}</p>'

    @staticmethod
    def action_swaps(source: dict, output: dict) -> list[str]:
        found = []

        def walk(a, b):
            if isinstance(a, dict) and isinstance(b, dict):
                for va, vb in zip(a.values(), b.values()):
                    walk(va, vb)
            elif isinstance(a, list) and isinstance(b, list):
                for va, vb in zip(a, b):
                    walk(va, vb)
            elif a != b:
                found.append(f"{a} → {b}")

        criteria = (source.get("evaluation_criteria") or {}), (output.get("evaluation_criteria") or {})
        walk(criteria[0].get("actions") or [], criteria[1].get("actions") or [])
        walk(criteria[0].get("communicate_info") or [], criteria[1].get("communicate_info") or [])
        return list(dict.fromkeys(found))

    def page(self) -> str:
        r = self.r
        statuses = Counter(e.status for e in r.tm.entries.values())
        t = r.translation
        summary = (f"<p>{len(r.source.tasks)} tasks, {r.text_fields} text fields, {t.segments} segments, "
                   f"{t.unique} unique templates. Memory: "
                   + ", ".join(f'<span class="st {s}">{s} {n}</span>' for s, n in sorted(statuses.items()))
                   + (f' <span class="st missing">missing {t.untranslated}</span>' if t.untranslated else "")
                   + f". Task repairs: {len(r.repairs.report.applied)}. Validation errors: {len(r.report.errors)}, "
                   f"QA warnings: {len(r.report.warnings)}.</p>")
        groups = self.groups()
        nav = "<nav><a href='#policy'>policy</a>" + "".join(
            f"<a href='#task-{_e(r.source.tasks[i]['id'])}'>{_e(r.source.tasks[i]['id'])}</a>" for i in groups) + "</nav>"
        tasks = "".join(self.task(i, r.source.tasks[i], r.domain.tasks[i]) + self.same_text(others)
                        for i, others in groups.items())
        return (f"<!DOCTYPE html><html lang='ja'><head><meta charset='utf-8'><title>J-tau review: {_e(r.rules.name)}"
                f"</title><style>{STYLE}</style></head><body><h1>J-tau review: {_e(r.rules.name)}</h1>{summary}{nav}"
                f"{self.policy()}{tasks}</body></html>\n")


def _get(data, path):
    for key in path:
        data = data[key]
    return data  # (the path comes from the same task's fields: it exists)


def review_page(result: Localization) -> str:
    return Review(result).page()


def changes_page(result: Localization, changes, revision: str) -> str:
    """Only what changed since `revision`: English, the Japanese then, the Japanese now."""
    rows = "".join(f'<tr><td class="f">{_e(c.where)}</td><td>{_e(c.english or "")}</td>'
                   f'<td>{_e(c.old if c.old is not None else "(new)")}</td><td>{_e(c.new)}</td></tr>' for c in changes)
    name = _e(result.rules.name)
    return (f"<!DOCTYPE html><html lang='ja'><head><meta charset='utf-8'><title>J-tau {name}: changes since "
            f"{_e(revision)}</title><style>{STYLE}</style></head><body><h1>J-tau {name}: {len(changes)} text fields "
            f"changed since {_e(revision)}</h1><table><tr><th class='f'>where</th><th>English</th>"
            f"<th>日本語 ({_e(revision)})</th><th>日本語 (now)</th></tr>{rows}</table></body></html>\n")


def review_json(result: Localization) -> str:
    """The numbers of the page, for scripts."""
    statuses = Counter(e.status for e in result.tm.entries.values())
    return json.dumps({"domain": result.rules.name, "memory": dict(sorted(statuses.items())),
                       "untranslated": result.translation.untranslated,
                       "qa_warnings": result.report.warnings, "errors": result.report.errors},
                      ensure_ascii=False, indent=2)
