"""Apply the domain rules to the db and to the tasks' structured fields, in place.

Every path a rule names is converted with the `Localizer`; values no map covers are
collected as `Problem`s (JSON path, kind, value) so that one run reports all of them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from jtau.rules import DomainRules
from jtau.swap.localizer import Localizer, Unmapped
from jtau.util import jsonpath
from jtau.util.listing import clip

TEXT = "text"
FROZEN = "frozen"  # a value kept as it is
AMOUNT = re.compile(r"^\$?\d[\d,]*(\.\d+)?$")


@dataclass(frozen=True)
class Problem:
    file: str
    path: tuple
    kind: str
    value: object
    reason: str

    def __str__(self) -> str:
        value = clip(repr(self.value), 100)
        return f"{self.file}: {jsonpath.format_path(self.path)}: {self.kind} {value}: {self.reason}"


def apply_rules(data, rules: dict[str, str], loc: Localizer, file: str, problems: list[Problem],
                prefix: tuple = ()) -> None:
    """Convert every value matched by `rules` (pattern -> kind) in `data`."""
    renames: list[tuple[str, str]] = []
    for pattern, kind in rules.items():
        if kind == TEXT:
            continue  # free text is the text stage's
        if pattern.endswith(jsonpath.KEYS):
            renames.append((pattern, kind))
            continue
        for path, container, key in list(jsonpath.find(data, pattern)):
            if container[key] is None:  # an optional value not set (tau2 dumps it as null)
                continue
            value = container[key]
            if isinstance(value, (dict, list)):  # one value of the kind (tau2's schema leaves tool arguments free)
                shape = "object" if isinstance(value, dict) else "list"
                problems.append(Problem(file, prefix + path, kind, value, f"a JSON {shape} where one {kind} belongs"))
                continue
            try:
                if kind == "option_value" and isinstance(key, str):  # key: the option's English name
                    container[key] = loc.option_value(container[key], key)
                else:
                    container[key] = loc.convert(kind, container[key])
            except Unmapped as exc:
                problems.append(Problem(file, prefix + path, kind, exc.value, exc.reason))
    for pattern, kind in renames:
        containers = {id(c): (path[:-1], c) for path, c, _ in jsonpath.find(data, pattern)}
        for path, container in containers.values():
            def rename(key, path=path, kind=kind):
                try:
                    return loc.convert(kind, key)
                except Unmapped as exc:
                    problems.append(Problem(file, prefix + path + (key,), kind, exc.value, exc.reason))
                    return key
            jsonpath.rename_keys(container, rename)


def localize_db(db, rules: DomainRules, loc: Localizer, problems: list[Problem]) -> None:
    shared_zips(db, rules, problems)
    apply_rules(db, rules.db, loc, rules.files.db_label, problems)


def shared_zips(db, rules: DomainRules, problems: list[Problem]) -> None:
    """A zip becomes one postal code of one Japanese city: a zip that addresses give with two
    different cities cannot be localized consistently."""
    cities: dict[str, tuple[str, tuple]] = {}
    for pattern, kind in rules.db.items():
        if kind != "zip" or "." not in pattern:
            continue
        parent, zip_key = pattern.rsplit(".", 1)
        city_key = next((p.rsplit(".", 1)[1] for p, k in rules.db.items()
                         if k == "address_city" and p.rsplit(".", 1)[0] == parent), None)
        for path, container, key in jsonpath.find(db, pattern):
            if city_key is None or not isinstance(container.get(city_key), str):
                continue
            zip_code, city = container[key], container[city_key]
            first = cities.setdefault(zip_code, (city, path))
            if first[0] != city:
                problems.append(Problem(rules.files.db_label, path, "zip", zip_code,
                                        f"in {city!r} here but in {first[0]!r} at {jsonpath.format_path(first[1])}"))


def tool_calls(task: dict, rules: DomainRules):
    """`(path, action, argument rules)` of every tool call in a task."""
    for pattern in rules.tasks.actions:
        for path, container, key in jsonpath.find(task, pattern):
            action = container[key]
            if isinstance(action, dict) and isinstance(action.get("arguments"), dict):
                name = action.get("name") or action.get("func_name")  # init actions: func_name
                yield path, action, rules.tools.get(name, {}) if name is not None else {}


def row_rules(rules: DomainRules) -> dict[str, str]:
    """The db rules as they read db rows outside the db (`TABLE.data.*.F` -> `TABLE.*.F`)."""
    return {pattern.replace(".data.", ".", 1): kind for pattern, kind in rules.db.items()}


def nested_call(action: dict, rules: DomainRules):
    """(inner tool name, its arguments) of a call that carries another tool's call, else None."""
    spec = rules.tasks.nested_calls.get(action.get("name") or "")
    arguments = action.get("arguments") or {}
    if not spec or not isinstance(arguments.get(spec["arguments"]), str):
        return None
    try:
        inner = json.loads(arguments[spec["arguments"]])
    except json.JSONDecodeError:
        return None
    return (arguments.get(spec["name"]), inner) if isinstance(inner, dict) else None


def localize_nested(action: dict, rules: DomainRules, loc: Localizer, file: str, problems: list[Problem],
                    prefix: tuple) -> None:
    """The inner call's arguments, localized by its own tool's rules and written back as JSON."""
    found = nested_call(action, rules)
    if found is None:
        return
    name, inner = found
    spec = rules.tasks.nested_calls[action["name"]]
    apply_rules(inner, rules.tools.get(name, {}), loc, file, problems, prefix=prefix + (spec["arguments"],))
    action["arguments"][spec["arguments"]] = json.dumps(inner, ensure_ascii=False)


def localize_task_structure(task: dict, index: int, rules: DomainRules, loc: Localizer,
                            problems: list[Problem]) -> None:
    """Tool-call arguments, db rows and communicate_info of one task (free text is not touched)."""
    file = rules.files.tasks
    for path, action, tool_rules in tool_calls(task, rules):
        apply_rules(action["arguments"], tool_rules, loc, file, problems,
                    prefix=(index,) + path + ("arguments",))
        localize_nested(action, rules, loc, file, problems, (index,) + path + ("arguments",))
    for pattern in rules.tasks.db_rows:
        for path, container, key in list(jsonpath.find(task, pattern)):
            if isinstance(container[key], dict):  # rows as {table: {key: row}} or, like db.json, {table: {data: ...}}
                for table_rules in (row_rules(rules), rules.db):
                    apply_rules(container[key], table_rules, loc, file, problems, prefix=(index,) + path)
    criteria = task.get("evaluation_criteria") or {}
    default = rules.tasks.communicate_info
    for i, item in enumerate(criteria.get("communicate_info") or []):
        kind = rules.tasks.communicate_info_kinds.get(item, default)
        if kind in (None, FROZEN):
            continue
        if kind == "money" and not (isinstance(item, str) and AMOUNT.match(item)):
            problems.append(Problem(file, (index, "evaluation_criteria", "communicate_info", i), "money", item,
                                    "not an amount: give its kind in the rules' communicate_info_kinds"))
            continue
        try:
            value = loc.convert(kind, item)
            criteria["communicate_info"][i] = str(value)
        except Unmapped as exc:
            problems.append(Problem(file, (index, "evaluation_criteria", "communicate_info", i),
                                    kind, exc.value, exc.reason))
