"""Referential integrity and one-to-one-ness: what the tools compare must still match."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from jtau.rules import DomainRules
from jtau.swap.structured import tool_calls
from jtau.util import jsonpath
from jtau.util.listing import clip
from jtau.validate.finding import Finding


def key_sets(db, rules: DomainRules) -> dict[str, set]:
    """Argument name -> the set of db keys it may refer to."""
    out = {}
    for argument, pattern in rules.references.items():
        keys = pattern.endswith(jsonpath.KEYS)  # `users@key`: the keys; else the values
        out[argument] = {key if keys else container[key] for _, container, key in jsonpath.find(db, pattern)}
    return out


def _arguments(value, path=()):
    """Every (path, name, value) leaf of a tool call's arguments."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                yield from _arguments(item, path + (key,))
            else:
                yield path + (key,), key, item
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _arguments(item, path + (index,))


def actions(tasks: list[dict], rules: DomainRules):
    """`(path, action, argument rules)` of every tool call of every task."""
    for index, task in enumerate(tasks):
        for path, action, table in tool_calls(task, rules):
            yield (index,) + path, action, table


def check_references(src_db, out_db, action_pairs, rules, file) -> tuple[list[Finding], int]:
    """Each id argument of a tool call (pairs of `actions` of the source and the output
    tasks) exists in the output db exactly when it exists in the source db."""
    src_keys, out_keys = key_sets(src_db, rules), key_sets(out_db, rules)
    errors, checked = [], 0
    for (path, s_action, _), (_, o_action, _) in action_pairs:
        s_args = list(_arguments(s_action.get("arguments") or {}))
        o_args = list(_arguments(o_action.get("arguments") or {}))
        for (arg_path, name, s_value), (_, _, o_value) in zip(s_args, o_args):
            if name not in rules.references:
                continue
            checked += 1
            if (s_value in src_keys[name]) != (o_value in out_keys[name]):
                state = "exists" if s_value in src_keys[name] else "dangles"
                errors.append(Finding("references", f"{name} {o_value!r}: in the source {s_value!r} {state}, here it "
                                      "does not", file, jsonpath.format_path(path + ('arguments',) + arg_path)))
    return errors, checked


def distinct_counts(db, rules: DomainRules) -> dict[str, int]:
    values: dict[str, set] = defaultdict(set)
    for pattern, kind in rules.db.items():
        if kind.startswith("money") or kind in CONTEXTUAL:
            continue
        for _, container, key in jsonpath.find(db, pattern):
            values[kind].add(key if pattern.endswith(jsonpath.KEYS) else container[key])
    for parent, _ in name_parents(rules.db):
        given, family = _field(rules.db, parent, "given_name"), _field(rules.db, parent, "family_name")
        for _, container, key in jsonpath.find(db, parent):
            values["person"].add((container[key].get(given), container[key].get(family)))
    return {kind: len(found) for kind, found in sorted(values.items())}


# Catalog words need to stay apart only within one option of one product (the retail
# validation's "variants distinguishable"); 'grey' and 'gray' of two products may share グレー.
CONTEXTUAL = {"option_name", "option_value"}


def check_bijective(src_db, out_db, rules, file) -> tuple[list[Finding], dict[str, int]]:
    before, after = distinct_counts(src_db, rules), distinct_counts(out_db, rules)
    errors = [Finding("distinct values", f"{before[kind]} distinct values in the source, {after.get(kind)} here", file,
                      kind) for kind in before if before[kind] != after.get(kind)]
    return errors, before


def name_parents(table: dict[str, str]) -> list[tuple[str, str]]:
    """Patterns of objects holding a given and a family name: (parent pattern, dob field)."""
    out = []
    for pattern, kind in table.items():
        if kind == "given_name" and "." in pattern:  # a name at the top of a call is a lookup
            parent = pattern.rsplit(".", 1)[0]
            out.append((parent, "dob"))
    return out


def _person(value, given: str | None, family: str | None, dob: str) -> tuple | None:
    """(given, family, dob) of a passenger in a tool call; None when it is no object of such
    values (a task repair may write anything there: tau2's schema leaves arguments free)."""
    if not isinstance(value, dict):
        return None
    person = (value.get(given), value.get(family), value.get(dob))
    return person if all(isinstance(part, (str, int, float, bool, type(None))) for part in person) else None


def _field(table: dict[str, str], parent: str, kind: str) -> str | None:
    for pattern, k in table.items():
        if k == kind and pattern.rsplit(".", 1)[0] == parent:
            return pattern.rsplit(".", 1)[1]
    return None


def _people(db, rules) -> dict[tuple, list[tuple]]:
    """(given, family, dob) -> positions (index paths) of the db records with that person.
    A record without dob (a user's own name) counts under dob None."""
    out: dict[tuple, list[tuple]] = defaultdict(list)
    positions = _Positions(db)
    for parent, dob in name_parents(rules.db):
        given, family = _field(rules.db, parent, "given_name"), _field(rules.db, parent, "family_name")
        for path, container, key in jsonpath.find(db, parent):
            record = container[key]
            out[(record.get(given), record.get(family), record.get(dob))].append(
                (parent, positions.of(path)))
    return out


class _Positions:
    """Index paths (dict keys replaced by their position) so that renamed keys compare."""

    def __init__(self, root):
        self.root, self.index = root, {}

    def of(self, path: tuple) -> tuple:
        out, node = [], self.root
        for key in path:
            if isinstance(node, dict):
                table = self.index.get(id(node))
                if table is None:
                    table = self.index[id(node)] = {k: i for i, k in enumerate(node)}
                out.append(table[key])
            else:
                out.append(key)
            node = node[key]
        return tuple(out)


def check_passengers(src_db, out_db, action_pairs, rules, file) -> tuple[list[Finding], int]:
    """Passengers in tool calls match the same db records (by position) as in the source."""
    src_people, out_people = _people(src_db, rules), _people(out_db, rules)
    errors, checked = [], 0
    for (path, s_action, tool), (_, o_action, _) in action_pairs:
        for parent, dob in name_parents(tool):
            given, family = _field(tool, parent, "given_name"), _field(tool, parent, "family_name")
            s_found = jsonpath.find(s_action.get("arguments") or {}, parent)
            o_found = jsonpath.find(o_action.get("arguments") or {}, parent)
            for (arg_path, sc, sk), (_, oc, ok) in zip(s_found, o_found):
                checked += 1
                s, o = _person(sc[sk], given, family, dob), _person(oc[ok], given, family, dob)
                s_match = sorted(src_people.get(s, [])) if s is not None else []
                o_match = sorted(out_people.get(o, [])) if o is not None else []
                if s_match != o_match:
                    who = f"{o[1]} {o[0]}" if o else clip(repr(oc[ok]), 60)
                    errors.append(Finding("passengers", f"{who} matches {len(o_match)} db records, the source "
                                          f"passenger {len(s_match)}", file,
                                          jsonpath.format_path(path + ('arguments',) + arg_path)))
    return errors, checked


def check_cited_tools(source_documents: dict, out_documents: dict, rules) -> tuple[list[Finding], int]:
    """Each document cites the tools its source cites, as many times (`open_bank_account_4821`
    stays verbatim: the agent calls it by that name), as the rules' `cited_tool` finds them."""
    cited = re.compile(rules.cited_tool)
    errors, checked = [], 0
    for name, document in source_documents.items():
        localized = out_documents.get(name, {})
        for key in rules.documents:
            want = Counter(cited.findall(document.get(key) or ""))
            got = Counter(cited.findall(localized.get(key) or ""))
            checked += sum(want.values())
            if want != got:
                errors.append(Finding("cited tools", f"tool names {sorted((want - got).elements())} missing, "
                                      f"{sorted((got - want).elements())} not in the source", name, key))
    return errors, checked
