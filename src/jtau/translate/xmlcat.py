"""XLIFF 1.2 and TMX 1.4 files for CAT tools, written and read with the standard library.

A placeholder is an inline code that a CAT tool protects, with the placeholder itself as the
code's content, so that a tool which flattens codes to text (translate-toolkit's xliff2po)
still has it:

    XLIFF  <ph id="1" ctype="x-order-id" equiv-text="#W2378156">{ORDER_ID_1}</ph>
    TMX    <ph x="1" type="x-order-id">{ORDER_ID_1}</ph>

(equiv-text: what the placeholder renders, where the unit's first occurrence has it).  Reading
maps each code back to its placeholder: the code's content when it is one, else the placeholder
of the source's code with the same id (a tool rewrote the code), else the unit is refused.

XLIFF 1.2 (urn:oasis:names:tc:xliff:document:1.2): `state` on every target: needs-translation
(missing, empty target), needs-review-translation (a previous translation to check),
translated (draft; machine also has state-qualifier leveraged-mt), signed-off (reviewed, the
only units with approved="yes").  TMX 1.4: the memory key as tuid, the status as
`<prop type="x-jtau-status">`; units without a translation are never written (a CAT tool
would take them as matches).  No timestamps: the same units give the same bytes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from functools import partial
from xml.parsers import expat

from jtau import __version__
from jtau.errors import InputError
from jtau.text.template import PLACEHOLDER
from jtau.util.limits import MAX_DEPTH, printable

XLIFF_NS = "urn:oasis:names:tc:xliff:document:1.2"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
STATES = {"missing": "needs-translation", "machine": "translated", "draft": "translated", "reviewed": "signed-off"}
PREVIOUS_STATE = "needs-review-translation"
STATUS_PROP = "x-jtau-status"
CODES = {"ph", "x", "bpt", "ept", "it", "bx", "ex", "ut"}  # XLIFF and TMX inline codes
WRAPPERS = {"g", "mrk", "hi", "sub"}  # inline elements around text: their text is kept
MIXED = {"source", "target", "note", "context", "seg", "prop"}  # never indented


def code_type(name: str) -> str:
    """`ORDER_ID_1` -> `x-order-id`: the entity kind, as an XLIFF/TMX user-defined type."""
    return "x-" + name.rsplit("_", 1)[0].lower().replace("_", "-")


def code_ids(source: str, target: str = "") -> dict[str, str]:
    """Placeholder -> inline code id: 1, 2, ... in order of appearance (source first)."""
    names = dict.fromkeys(PLACEHOLDER.findall(source) + PLACEHOLDER.findall(target))
    return {name: str(number) for number, name in enumerate(names, 1)}


def _fill(element: ET.Element, text: str, code: Callable[[ET.Element, str], ET.Element]) -> None:
    """Put `text` into `element`, each placeholder as the inline code `code` makes."""
    element.text, last, position = "", None, 0
    for match in [*PLACEHOLDER.finditer(text), None]:
        literal = text[position:match.start() if match else len(text)]
        if last is None:
            element.text = literal
        else:
            last.tail = literal
        if match:
            last, position = code(element, match[1]), match.end()


def _indent(element: ET.Element, level: int = 0) -> None:
    """Indent the structure (two spaces a level), never the text of a segment or note."""
    children = list(element)
    if not children or _local(element.tag) in MIXED:
        return
    pad = "\n" + "  " * (level + 1)
    element.text = pad
    for child in children:
        _indent(child, level + 1)
        child.tail = pad
    children[-1].tail = "\n" + "  " * level


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _xliff_ph(parent: ET.Element, name: str, ids: dict[str, str], renderings: dict[str, str]) -> ET.Element:
    code = ET.SubElement(parent, "ph", {"id": ids[name], "ctype": code_type(name)})
    if renderings.get(name):
        code.set("equiv-text", renderings[name])
    code.text = "{" + name + "}"
    return code


def _tmx_ph(parent: ET.Element, name: str, ids: dict[str, str]) -> ET.Element:
    code = ET.SubElement(parent, "ph", x=ids[name], type=code_type(name))
    code.text = "{" + name + "}"
    return code


def dump_xliff(units, domain: str) -> bytes:
    root = ET.Element("xliff", xmlns=XLIFF_NS, version="1.2")  # local names, the namespace as xmlns
    file = ET.SubElement(root, "file", {"original": domain or "jtau", "source-language": "en",
                                        "target-language": "ja", "datatype": "plaintext"})
    body = ET.SubElement(file, "body")
    for item in units:
        attributes = {"id": item.key, XML_SPACE: "preserve"}
        if item.status == "reviewed":
            attributes["approved"] = "yes"
        unit = ET.SubElement(body, "trans-unit", attributes)
        ph = partial(_xliff_ph, ids=code_ids(item.source, item.target), renderings=item.renderings)
        _fill(ET.SubElement(unit, "source"), item.source, ph)
        target = ET.SubElement(unit, "target", state=PREVIOUS_STATE if item.previous else STATES[item.status])
        if item.status == "machine":
            target.set("state-qualifier", "leveraged-mt")
        _fill(target, item.target, ph)
        for location in item.locations:
            group = ET.SubElement(unit, "context-group", purpose="location")
            file_name, line = location.rsplit(":", 1)
            ET.SubElement(group, "context", {"context-type": "sourcefile"}).text = file_name
            ET.SubElement(group, "context", {"context-type": "linenumber"}).text = line
        if item.note:
            ET.SubElement(unit, "note", {"from": "developer"}).text = item.note
    _indent(root)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n").encode("utf-8")


def dump_tmx(units) -> bytes:
    root = ET.Element("tmx", version="1.4")
    ET.SubElement(root, "header", {"creationtool": "jtau", "creationtoolversion": __version__,
                                   "segtype": "paragraph", "o-tmf": "jtau", "adminlang": "en",
                                   "srclang": "en", "datatype": "plaintext"})
    body = ET.SubElement(root, "body")
    for item in units:
        if not item.target or item.previous:
            continue  # a TMX unit is a match: only translations of the current source
        unit = ET.SubElement(body, "tu", tuid=item.key)
        if item.note:
            ET.SubElement(unit, "note").text = item.note
        ET.SubElement(unit, "prop", type="x-context").text = item.key
        ET.SubElement(unit, "prop", type=STATUS_PROP).text = item.status
        ph = partial(_tmx_ph, ids=code_ids(item.source, item.target))
        for lang, text in (("en", item.source), ("ja", item.target)):
            _fill(ET.SubElement(ET.SubElement(unit, "tuv", {XML_LANG: lang}), "seg"), text, ph)
    _indent(root)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tmx SYSTEM "tmx14.dtd">\n'
            + ET.tostring(root, encoding="unicode") + "\n").encode("utf-8")


class CodeError(ValueError):
    """An inline code that stands for no placeholder of the unit."""


def inline_text(element: ET.Element | None, names: dict[str, str]) -> str:
    """The text of a segment with its inline codes as `{PLACEHOLDER}`s.  `names` maps code ids
    to placeholders: filled from the source, used for the target's rewritten codes."""
    if element is None:
        return ""
    parts = [element.text or ""]
    for child in element:
        tag = _local(child.tag)
        if tag in WRAPPERS:
            parts.append(inline_text(child, names))
        elif tag in CODES:
            code_id = child.get("id") or child.get("x") or child.get("i") or ""
            content = "".join(child.itertext())
            if PLACEHOLDER.fullmatch(content):
                name = content[1:-1]
                names.setdefault(code_id, name)
            elif code_id in names:
                name = names[code_id]
            else:
                raise CodeError(f"inline code <{tag} id={code_id!r}> stands for none of the source's placeholders")
            parts.append("{" + name + "}")
        parts.append(child.tail or "")
    return "".join(parts)


class _Refused(Exception):
    """What the scan of an XML file refuses, at a line."""

    def __init__(self, line: int, what: str):
        super().__init__(what)
        self.line, self.what = line, what


def _parse(data: bytes, path, fmt: str, unit: str) -> tuple[ET.Element, list[int]]:
    """The root of an XLIFF or TMX file and the line of every `unit` start tag (any namespace),
    in document order.  Checked first by a scan with expat: elements nested at most MAX_DEPTH
    levels, no entity declared (a CAT file needs none; expanded they make a few lines
    megabytes) -- else one line naming the file and the line."""
    parser, lines, depth = expat.ParserCreate(namespace_separator="}"), [], 0

    def start(tag, attributes):
        nonlocal depth
        depth += 1
        if depth > MAX_DEPTH:
            raise _Refused(parser.CurrentLineNumber, f"elements nested deeper than {MAX_DEPTH} levels")
        if _local(tag) == unit:
            lines.append(parser.CurrentLineNumber)

    def end(tag):
        nonlocal depth
        depth -= 1

    def entity(name, *_):
        raise _Refused(parser.CurrentLineNumber, f"an entity declaration ({printable(name, 60)}): jtau reads "
                       f"{fmt} files without entities")

    parser.StartElementHandler, parser.EndElementHandler, parser.EntityDeclHandler = start, end, entity
    try:
        parser.Parse(data, True)
        return ET.fromstring(data), lines
    except _Refused as exc:
        raise InputError(f"{path}:{exc.line}: {exc.what}") from None
    except (expat.ExpatError, ET.ParseError) as exc:
        line, column = (exc.lineno, exc.offset) if isinstance(exc, expat.ExpatError) else exc.position
        reason = str(exc).split(": line ", 1)[0]  # expat's message ends with the position
        raise InputError(f"{path}:{line}:{column}: not a readable {fmt} file: {reason}") from None


def read_xliff(data: bytes, path) -> list[dict]:
    """Every trans-unit of an XLIFF file (1.2, 1.1 or without namespace): key (its id), source,
    target, note, line, problem (a code that cannot be read)."""
    root, lines = _parse(data, path, "XLIFF", "trans-unit")
    if _local(root.tag) != "xliff":
        raise InputError(f"{path}: not an XLIFF file (its root element is <{_local(root.tag)}>)")
    if root.get("version", "").startswith("2"):
        raise InputError(f"{path}: XLIFF {root.get('version')}: jtau reads XLIFF 1.2 (the version it exports) and 1.1")
    ns = root.tag[:root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    out = []
    for unit, line in zip(root.iter(f"{ns}trans-unit"), lines):
        if unit.get("restype") == "x-gettext-domain-header":  # po2xliff's PO header
            continue
        item = {"key": unit.get("id", ""), "line": line, "problem": "", "source": "", "target": "",
                "note": "\n".join(n.text or "" for n in unit.findall(f"{ns}note"))}
        names: dict[str, str] = {}
        try:
            item["source"] = inline_text(unit.find(f"{ns}source"), names)
            item["target"] = inline_text(unit.find(f"{ns}target"), names)
        except CodeError as exc:
            item["problem"] = str(exc)
        out.append(item)
    return out


def read_tmx(data: bytes, path) -> list[dict]:
    """Every tu of a TMX file: key (tuid or x-context), source (the tuv in the header's source
    language), target (the other tuv), note, line, problem."""
    root, lines = _parse(data, path, "TMX", "tu")
    if root.tag != "tmx":
        raise InputError(f"{path}: not a TMX file (its root element is <{root.tag}>)")
    header = root.find("header")
    srclang = (header.get("srclang") if header is not None else None) or "en"
    out = []
    for unit, line in zip(root.iter("tu"), lines):
        props = {prop.get("type"): prop.text or "" for prop in unit.findall("prop")}
        item = {"key": unit.get("tuid") or props.get("x-context", ""), "line": line, "problem": "",
                "source": "", "target": "", "note": "\n".join(n.text or "" for n in unit.findall("note"))}
        variants = unit.findall("tuv")
        source = [v for v in variants if (v.get(XML_LANG) or v.get("lang") or "").lower() == srclang.lower()]
        others = [v for v in variants if v not in source]
        names: dict[str, str] = {}
        try:
            item["source"] = inline_text(source[0].find("seg") if source else None, names)
            item["target"] = inline_text(others[0].find("seg") if others else None, names)
        except CodeError as exc:
            item["problem"] = str(exc)
        out.append(item)
    return out
