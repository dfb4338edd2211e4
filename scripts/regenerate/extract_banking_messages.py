#!/usr/bin/env python3
"""Every text banking_knowledge's tools write for the agent or the customer, read from tau2's code.

Reads tau2-bench's `banking_knowledge` tool code (tools.py, retrieval_mixins.py and the
query_database_tool part of db_query.py) with `ast`, never by running it, and
finds what the tools return: every string or f-string that reaches a tool's output (a `return`, a
piece of a result the code assembles with `"\\n".join(parts)`, `parts.append(...)`, `result += ...`,
the error a helper hands back as `(message, None)`, a `raise ValueError(...)` message), and the
English texts a field of such a message may hold (`"Expedited" if ... else "Standard"`, a lookup
table's values, enum literals the message shows as `x.replace('_', ' ').title()`).

Keys are written the way `src/jtau/runtime/banking_knowledge_messages.ja.yaml` keys them: the
English text with `{field}` where the f-string writes a value; the field is named after what the
code writes (`{amount}` for `{amount:.2f}`, `{status}` for `{card.get('status')}`, `{reason}` for
`{reason.replace('_', ' ').title()}`, `{new_limit_minus_current_limit}` for `{new_limit - current_limit}`),
a second use of a name in one message is `{name_2}`; the format spec is dropped, a `$` before a
field is kept (the runtime writes that field as yen with its unit).

    python scripts/regenerate/extract_banking_messages.py [--tau2 SRC] [--yaml FILE] [--list]

prints what the YAML lacks (messages and field values), the keys it holds that the code no longer
writes, and the fields a Japanese value does not keep exactly once; exit 1 when anything is missing
or wrong, 0 otherwise.  `--tau2` is the banking_knowledge source folder (default: the installed
tau2's, else ../shared/tau2-bench-1.0.1).  `--list` prints every message with where it is written.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_YAML = ROOT / "src" / "jtau" / "domains" / "banking_knowledge" / "messages.ja.yaml"
SHARED = ROOT.parent / "shared" / "tau2-bench-1.0.1" / "src" / "tau2" / "domains" / "banking_knowledge"
MODULES = ("tools.py", "retrieval_mixins.py", "db_query.py")
DB_QUERY_FUNCTIONS = {"query_database_tool"}  # db_query.py: the one whose text reaches a tool's output
FIELD = re.compile(r"\{(\w+)\}")
ENUM = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*$")  # 'fraud_suspected', 'lost': shown .title()d by some messages
DISPLAY_METHODS = {"replace", "title", "lower", "upper", "strip", "capitalize"}
NUMBER_CALLS = {"abs", "round", "str", "int", "float"}


@dataclass
class Found:
    kind: str  # "message" (a text the tool writes) or "value" (a text a message's field holds)
    where: list[str] = field(default_factory=list)  # "tools.py:812 file_credit_card_transaction_dispute_4829"


# what tau2 shows of a discoverable tool's docstring besides the code's strings: its section labels
DOCSTRING_LABELS = {"Returns:"}


def default_source() -> Path:
    try:
        import tau2.domains.banking_knowledge as package  # noqa: PLC0415 (optional: the installed tau2)
        return Path(package.__file__).parent
    except Exception:  # noqa: BLE001 (tau2 26.3 has no such domain; tau2 absent)
        return SHARED


# --- field names -------------------------------------------------------------------------------

def field_name(node: ast.expr) -> str:
    """The name a message key gives the value an f-string writes."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    if isinstance(node, ast.Subscript):
        return field_name(node.value)
    if isinstance(node, ast.IfExp):
        return field_name(node.test)
    if isinstance(node, ast.BinOp):
        op = {ast.Sub: "minus", ast.Add: "plus", ast.Mult: "times", ast.Div: "per"}.get(type(node.op), "op")
        return f"{field_name(node.left)}_{op}_{field_name(node.right)}"
    if isinstance(node, ast.Constant):
        return str(node.value).replace(".", "_")
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr == "get" and node.args and isinstance(node.args[0], ast.Constant):
                return str(node.args[0].value)  # card.get('status') -> status
            if func.attr == "join" and node.args:
                return field_name(node.args[0])  # ', '.join(valid_reasons) -> valid_reasons
            if func.attr == "dumps" and node.args:
                return "arguments" if isinstance(node.args[0], ast.Dict) else field_name(node.args[0])
            if func.attr in DISPLAY_METHODS:
                return field_name(func.value)  # reason.replace('_', ' ').title() -> reason
            return func.attr
        if isinstance(func, ast.Name):
            if func.id == "len":
                return "count"
            if func.id == "get_today_str":
                return "today"
            if func.id in NUMBER_CALLS and node.args:
                return field_name(node.args[0])
            return func.id
    return "value"


def key_of(node: ast.expr) -> str | None:
    """A str constant or f-string (or a `+` of them) as a message key; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts, seen = [], Counter()
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                name = field_name(value.value)
                seen[name] += 1
                parts.append("{" + (name if seen[name] == 1 else f"{name}_{seen[name]}") + "}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = key_of(node.left), key_of(node.right)
        if left is not None and right is not None:
            return _renumber(left + right)
    return None


def _renumber(key: str) -> str:
    """Fields of a concatenation renamed as one f-string would name them."""
    seen: Counter = Counter()

    def rename(match: re.Match) -> str:
        base = re.sub(r"_\d+$", "", match[1])
        seen[base] += 1
        return "{" + (base if seen[base] == 1 else f"{base}_{seen[base]}") + "}"
    return FIELD.sub(rename, key)


def texts_in(node: ast.expr | None) -> list[ast.expr]:
    """The message-shaped expressions an expression may evaluate to."""
    if node is None:
        return []
    if key_of(node) is not None:
        return [node]
    if isinstance(node, ast.IfExp):
        return texts_in(node.body) + texts_in(node.orelse)
    if isinstance(node, ast.Tuple) and node.elts:
        return texts_in(node.elts[0])  # return (error_message, None)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e for elt in node.elts for e in texts_in(elt)]
    return []


# --- one function ------------------------------------------------------------------------------

class FunctionReader:
    """The output of one function: what it returns, and what flows into that."""

    def __init__(self, function: ast.FunctionDef, module: str, out: dict[str, Found]):
        self.function, self.module, self.out = function, module, out
        self.assigned: dict[str, list[ast.expr]] = {}   # name -> expressions assigned or appended to it
        self.nodes = list(ast.walk(function))  # nested helpers (parse_balance, txn_sort_key) return no text

    def read(self) -> None:
        arguments = self.function.args
        for argument, default in zip(arguments.args[::-1], arguments.defaults[::-1]):
            self.assigned.setdefault(argument.arg, []).append(default)  # reason="Customer requested closure"
        for node in self.nodes:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) and node.value:
                self.assigned.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in {"append", "extend", "insert"} and isinstance(node.func.value, ast.Name):
                self.assigned.setdefault(node.func.value.id, []).extend(node.args[-1:])
        outputs: list[ast.expr] = []
        for node in self.nodes:
            if isinstance(node, ast.Return) and node.value is not None:
                outputs.append(node.value)
            elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args \
                    and getattr(node.exc.func, "id", "") == "ValueError":
                outputs.append(node.exc.args[0])
        seen_names: set[str] = set()
        while outputs:
            expr = outputs.pop()
            for name in self._names_flowing(expr):
                if name not in seen_names:
                    seen_names.add(name)
                    outputs.extend(self.assigned.get(name, []))
            for text in texts_in(expr):
                self._record(text, "message")
            if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "join":
                outputs.extend(expr.args)

    def _names_flowing(self, expr: ast.expr) -> list[str]:
        """Names whose value becomes (part of) this output: the expression itself, a joined list."""
        if isinstance(expr, ast.Name):
            return [expr.id]
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "join":
            return [a.id for a in expr.args if isinstance(a, ast.Name)]
        if isinstance(expr, ast.BinOp):
            return self._names_flowing(expr.left) + self._names_flowing(expr.right)
        return []

    def _record(self, node: ast.expr, kind: str) -> None:
        key = key_of(node)
        if key is None:
            return
        if _is_text(key):
            found = self.out.setdefault(key, Found(kind))
            if kind == "message":
                found.kind = "message"
            found.where.append(f"{self.module}:{node.lineno} {self.function.name}")
        if isinstance(node, ast.JoinedStr):  # "  - {name}: {type}{req_str}": no words, but its fields hold some
            for value in node.values:
                if isinstance(value, ast.FormattedValue):
                    self._field_values(value.value)

    def _field_values(self, expr: ast.expr) -> None:
        """English texts a field may hold: a conditional's strings, a variable's string values, a
        lookup table's values, a nested f-string's fields, the .title() of the function's enum literals."""
        if isinstance(expr, ast.IfExp):
            for branch in (expr.body, expr.orelse):
                self._value_or_field(branch)
        elif isinstance(expr, ast.Name):
            for value in self.assigned.get(expr.id, []):
                self._value_or_field(value)
        elif isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
            # data["verification_notes"] where data = table[id]; the table's rows hold the texts
            key = expr.slice.value if isinstance(expr.slice, ast.Constant) else None
            for value in self.assigned.get(expr.value.id, []):
                if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
                    for table in self.assigned.get(value.value.id, []):
                        self._table_values(table, key)
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in DISPLAY_METHODS:
            self._displayed(expr)
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "join":
            self._value_or_field(expr)  # {', '.join(fee_details)}: the texts appended to fee_details

    def _displayed(self, expr: ast.Call) -> None:
        """`x.replace('_', ' ').title()`, `limit_name.lower()`: the texts as the message shows them,
        of x's string values, or, for a .title(), of the function's enum literals."""
        methods, base = [], expr
        while isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) and base.func.attr in DISPLAY_METHODS:
            methods.insert(0, (base.func.attr, [a.value for a in base.args if isinstance(a, ast.Constant)]))
            base = base.func.value
        candidates = []
        if isinstance(base, ast.Name):
            candidates = [key_of(v) for v in self.assigned.get(base.id, []) if key_of(v) is not None]
        if any(name == "title" for name, _ in methods):
            candidates += self._enum_literals()
        for text in candidates:
            for name, args in methods:
                text = getattr(text, name)(*args)
            if _is_text(text):
                self._record_value(text, expr)

    def _value_or_field(self, value: ast.expr) -> None:
        if isinstance(value, ast.IfExp):
            self._value_or_field(value.body)
            self._value_or_field(value.orelse)
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "join":
            for joined in value.args:  # params_section = "\n".join(param_strs): the lines' fields
                for line in self.assigned.get(joined.id, []) if isinstance(joined, ast.Name) else []:
                    self._value_or_field(line)
        elif (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
              and value.func.attr in DISPLAY_METHODS):
            self._displayed(value)  # flag_type_display = flag_type.replace("_", " ").title()
        elif isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
            for table in self.assigned.get(value.value.id, []):
                self._table_values(table, None)  # expected_delivery = delivery_times[option]
        elif key_of(value) is not None:
            self._record(value, "value")

    def _table_values(self, table: ast.expr, key: str | None) -> None:
        if not isinstance(table, ast.Dict):
            return
        for v in table.values:
            if key is None:
                self._value_or_field(v)
            elif isinstance(v, ast.Dict):
                for k2, v2 in zip(v.keys, v.values):
                    if isinstance(k2, ast.Constant) and k2.value == key:
                        self._value_or_field(v2)

    def _enum_literals(self) -> list[str]:
        return sorted({elt.value for node in self.nodes if isinstance(node, ast.List)
                       for elt in node.elts
                       if isinstance(elt, ast.Constant) and isinstance(elt.value, str) and ENUM.match(elt.value)})

    def _record_value(self, text: str, node: ast.expr) -> None:
        found = self.out.setdefault(text, Found("value"))
        found.where.append(f"{self.module}:{node.lineno} {self.function.name}")


def _is_text(key: str) -> bool:
    """Words a reader reads: not a separator, a number format, or an enum literal ('ON_TIME', 'lost')."""
    bare = FIELD.sub("", key).strip()
    return bool(re.search(r"[A-Za-z]{2,}", bare)) and not re.fullmatch(r"[a-z0-9_]+|[A-Z0-9_]+", bare)


# --- modules -----------------------------------------------------------------------------------

def extract(source: Path | None = None) -> dict[str, Found]:
    """Every message (and field value) of banking_knowledge's tools, by key."""
    source = source or default_source()
    out: dict[str, Found] = {}
    for module in MODULES:
        tree = ast.parse((source / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            if module == "db_query.py" and node.name not in DB_QUERY_FUNCTIONS:
                continue
            if node.name == "parse_discoverable_tool_docstring":
                continue  # a tool's description, from its docstring (banking_knowledge_tools.ja.yaml)
            FunctionReader(node, module, out).read()
    return out


def load_table(path: Path) -> dict:
    import yaml  # noqa: PLC0415

    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def problems(found: dict[str, Found], table: dict) -> list[str]:
    """What the YAML lacks, holds in excess, or renders without its fields."""
    messages = table.get("messages") or {}
    values = table.get("field_values") or {}
    out = []
    for key, info in sorted(found.items()):
        section = messages if info.kind == "message" else values
        if key not in section:
            out.append(f"missing {info.kind}: {key!r}  ({info.where[0]})")
    for name, section in (("messages", messages), ("field_values", values)):
        for key, japanese in section.items():
            if key not in found and key not in DOCSTRING_LABELS:
                out.append(f"{name}: not written by the tools (any more): {key!r}")
            if not isinstance(japanese, str):
                out.append(f"{name}: {key!r}: the Japanese is not a string")
                continue
            fields, kept = Counter(FIELD.findall(key)), Counter(FIELD.findall(japanese))
            if set(fields) != set(kept) or any(n != 1 for n in kept.values()):
                out.append(f"{name}: {key!r}: the Japanese must keep each field exactly once "
                           f"({sorted(fields)} vs {sorted(kept.elements())})")
    for key, names in (table.get("dollar_fields") or {}).items():  # amounts tau2 writes without "$"
        if key not in messages or not set(names) <= set(FIELD.findall(key)):
            out.append(f"dollar_fields: {key!r}: not a message with the fields {names}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tau2", type=Path, help="tau2's banking_knowledge source folder")
    parser.add_argument("--yaml", type=Path, default=DEFAULT_YAML)
    parser.add_argument("--list", action="store_true", help="print every message and where it is written")
    args = parser.parse_args(argv)
    found = extract(args.tau2)
    if args.list:
        for key, info in found.items():
            print(f"{info.kind:7} {info.where[0]:70} {key!r}")
    kinds = Counter(info.kind for info in found.values())
    errors = problems(found, load_table(args.yaml) if args.yaml.is_file() else {})
    for line in errors:
        print(line)
    print(f"{kinds['message']} messages, {kinds['value']} field values in the code; "
          f"{len(errors)} problem(s) with {args.yaml.name}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
