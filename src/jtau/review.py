"""`jtau review DOMAIN`: side-by-side review material, one static HTML page per domain.

For the policy (per section), every task (per free-text field), the db's notes and the
knowledge base's documents (banking_knowledge: one collapsed section each, line by line): the
English source (with task repairs applied) beside the Japanese output, the entity swaps made in
it, the memory status of each segment (draft, reviewed, ...), and the QA flags of validation.  A
task's repair, if any, is shown with its reason.  Also: memory status counts and the
structured swaps of the task's tool calls.  No script, no external asset: it opens from disk.
The page of changes marks what changed inside each text (characters: Japanese has no spaces).
"""

from __future__ import annotations

import difflib
import html
import json
from collections import Counter

from jtau.pipeline import Localization
from jtau.text.fields import Field
from jtau.text.template import Template
from jtau.translate.engine import needs_translation
from jtau.util.jsonpath import format_path
from jtau.util.listing import joined

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
ins{background:#c8f0c8;text-decoration:none} del{background:#f8c8c8}
details{margin:.2em 0} summary{cursor:pointer}
"""


def _e(text) -> str:
    return html.escape(str(text))


class Review:
    def __init__(self, result: Localization):
        self.r = result
        self.locale = result.maps.locale.locale
        self.all_flags = [str(finding) for finding in (*result.report.errors, *result.report.warnings)]

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
                heading = f'{_e(ja)}　/　{_e(en.lstrip("# "))}'
                rows.append(f'<tr><th colspan="3" id="{anchor}-{number}">{heading}</th></tr>')
            elif en.strip():
                flag = self.flags(f"{name}:{number}")
                rows.append(f'<tr><td class="f">{number}</td><td>{_e(en)}</td><td>{_e(ja)}{flag}</td></tr>')
        return (f'<h2 id="{anchor}">{_e(name)} {self.badges(field)}</h2><table><tr><th class="f">line</th>'
                f'<th>English</th><th>日本語</th></tr>{"".join(rows)}</table>')

    def task(self, index: int, source: dict, output: dict) -> str:
        fields = [f for f in self.r.text.fields if f.file == self.r.rules.files.tasks and f.path[0] == index]
        rows = []
        for f in fields:
            label = (format_path(f.path[1:]).replace("user_scenario.instructions.", "")
                     .replace("evaluation_criteria.", ""))
            rows.append(self.field_row(label, _get(source, f.path[1:]), f))
        repair = "".join(f'<div class="reason"><b>Repaired</b> ({_e(p.path.name)}): {_e(p.spec.reason)}</div>'
                         for p in self.r.repairs.patches if str(source["id"]) in p.spec.task_ids)
        actions = self.action_swaps(source, output)
        swapped = (f'<h3>Tool calls: values swapped</h3><div class="swap">{_e(", ".join(actions))}</div>'
                   if actions else "")
        return (f'<h2 id="task-{_e(source["id"])}">Task {_e(source["id"])}</h2>{repair}'
                f'<table><tr><th class="f">field</th><th>English</th><th>日本語</th></tr>{"".join(rows)}</table>'
                + swapped)

    def db_notes(self) -> str:
        """The db's free text (banking's table notes, which the agent reads), field by field."""
        fields = [f for f in self.r.text.fields if f.file in self.r.rules.files.db_files]
        if not fields:
            return ""
        rows = "".join(self.field_row(f"{f.file} {format_path(f.path)}", _get(self.r.source.db, f.path), f)
                       for f in fields)
        return (f'<h2 id="db">Database text</h2><table><tr><th class="f">field</th><th>English</th>'
                f'<th>日本語</th></tr>{rows}</table>')

    def documents(self) -> str:
        """The knowledge base (banking: 698 documents, most of the domain's text): one collapsed
        section per document, its title and each content line, English beside Japanese."""
        if not self.r.source.documents:
            return ""
        fields: dict[str, list[Field]] = {}
        for f in self.r.text.fields:
            if f.file in self.r.source.documents:
                fields.setdefault(f.file, []).append(f)
        parts = []
        for name, source in self.r.source.documents.items():
            output = self.r.domain.documents.get(name, {})
            badges = "".join(self.badges(f) for f in fields.get(name, []))
            rows = []
            for number, (en, ja) in enumerate(zip(source.get("content", "").split("\n"),
                                                  output.get("content", "").split("\n")), 1):
                if en.strip():
                    rows.append(f'<tr><td class="f">{number}</td><td>{_e(en)}</td>'
                                f'<td>{_e(ja)}{self.flags(f"{name}: content:{number}")}</td></tr>')
            parts.append(f'<details id="doc-{_e(source.get("id", name))}"><summary>{_e(output.get("title", ""))}　/　'
                         f'{_e(source.get("title", ""))} <span class="swap">{_e(source.get("id", name))}</span>'
                         f'{badges}</summary>{self.flags(f"{name}: title:1")}<table><tr><th class="f">line</th>'
                         f'<th>English</th><th>日本語</th></tr>{"".join(rows)}</table></details>')
        return f'<h2 id="documents">Documents ({len(parts)})</h2>{"".join(parts)}'

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
        task_links = "".join(f"<a href='#task-{_e(r.source.tasks[i]['id'])}'>{_e(r.source.tasks[i]['id'])}</a>"
                             for i in groups)
        documents_link = "<a href='#documents'>documents</a>" if r.source.documents else ""
        nav = "<nav><a href='#policy'>policy</a>" + documents_link + task_links + "</nav>"
        tasks = "".join(self.task(i, r.source.tasks[i], r.domain.tasks[i]) + self.same_text(others)
                        for i, others in groups.items())
        return (f"<!DOCTYPE html><html lang='ja'><head><meta charset='utf-8'><title>J-tau review: {_e(r.rules.name)}"
                f"</title><style>{STYLE}</style></head><body><h1>J-tau review: {_e(r.rules.name)}</h1>{summary}{nav}"
                f"{self.policy()}{self.db_notes()}{tasks}{self.documents()}</body></html>\n")


def _get(data, path):
    for key in path:
        data = data[key]
    return data  # (the path comes from the same task's fields: it exists)


def review_page(result: Localization) -> str:
    return Review(result).page()


def marked(old: str, new: str) -> tuple[str, str]:
    """`old` and `new` as HTML with what changed marked: <del> in the old, <ins> in the new.
    Compared by character (Japanese has no spaces between words); an unchanged run of one or
    two characters between two changes joins them, so a rewritten phrase reads as one change."""
    opcodes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    merged: list[list] = []
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        short_gap = tag == "equal" and i2 - i1 <= 2 and index + 1 < len(opcodes)  # a change follows
        if merged and merged[-1][0] != "equal" and (tag != "equal" or short_gap):
            merged[-1][0], merged[-1][2], merged[-1][4] = "replace", i2, j2
        else:
            merged.append([tag, i1, i2, j1, j2])
    old_html, new_html = [], []
    for tag, i1, i2, j1, j2 in merged:
        if tag == "equal":
            old_html.append(_e(old[i1:i2]))
            new_html.append(_e(new[j1:j2]))
            continue
        if i2 > i1:
            old_html.append(f"<del>{_e(old[i1:i2])}</del>")
        if j2 > j1:
            new_html.append(f"<ins>{_e(new[j1:j2])}</ins>")
    return "".join(old_html), "".join(new_html)


def changes_page(result: Localization, changes, revision: str) -> str:
    """Only what changed since `revision`: English, the Japanese then, the Japanese now, with
    what changed inside each text marked."""
    rows = []
    for c in changes:
        old, new = marked(c.old, c.new) if c.old is not None else ("(new)", _e(c.new))
        rows.append(f'<tr><td class="f">{_e(c.where)}</td><td>{_e(c.english or "")}</td><td>{old}</td>'
                    f'<td>{new}</td></tr>')
    table_rows = "".join(rows)
    name = _e(result.rules.name)
    return (f"<!DOCTYPE html><html lang='ja'><head><meta charset='utf-8'><title>J-tau {name}: changes since "
            f"{_e(revision)}</title><style>{STYLE}</style></head><body><h1>J-tau {name}: {len(changes)} text fields "
            f"changed since {_e(revision)}</h1><table><tr><th class='f'>where</th><th>English</th>"
            f"<th>日本語 ({_e(revision)})</th><th>日本語 (now)</th></tr>{table_rows}</table></body></html>\n")


def review_json(result: Localization) -> str:
    """The numbers of the page, for scripts."""
    statuses = Counter(e.status for e in result.tm.entries.values())
    return json.dumps({"domain": result.rules.name, "memory": dict(sorted(statuses.items())),
                       "untranslated": result.translation.untranslated,
                       "qa_warnings": [str(w) for w in result.report.warnings],
                       "errors": [str(e) for e in result.report.errors]},
                      ensure_ascii=False, indent=2)
