"""What `jtau verify` reads of every tool answer: the source's and the arm's answers to the same
call, compared by validate/tool_output.py (money, notation, other numbers, language).

`readings_for(...)` sets up the comparison once per verified arm (each side's entities, the
domain's money fields and the words a Japanese answer may keep: field names, enum literals,
tool names); `compare_calls` reads one task's golden trajectory on both sides; `sweep` calls
every read tool of the rules (`reads`) over every record of the initial db on both sides.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from jtau.arms import LANGUAGE_KINDS, Arm
from jtau.rules import MONEY_KINDS, DomainRules
from jtau.util import jsonpath
from jtau.validate.tool_output import Finding, Reader, Side

NOT_ENTITIES = (*MONEY_KINDS, "date_mdy", "clock_est", "text", "money_expression")
EXCERPT = 600  # characters of each answer a finding carries


@dataclass(frozen=True)
class Reading:
    """One finding on one call: where, what, and both answers (excerpts)."""
    action: int      # the golden call's index, or the read call's
    tool: str        # the tool (a read call: with its arguments)
    finding: Finding
    source: str
    arm: str
    read: bool = False  # a read call over a record of the initial db, not a golden call

    def __str__(self) -> str:
        where = self.tool if self.read else f"action {self.action} {self.tool}"
        return f"{where}: tool output {self.finding}"

    def as_json(self) -> dict:
        return {"action": self.action, "tool": self.tool, "kind": self.finding.kind, "detail": self.finding.detail,
                "source": self.source[:EXCERPT], "arm": self.arm[:EXCERPT]}


def money_fields(rules: DomainRules) -> set[str]:
    """The field names that hold an amount in the db or in a tool's arguments (`prices.*`: every
    field of an object named prices)."""
    paths = [p for p, k in rules.db.items() if k in MONEY_KINDS]
    paths += [p for table in (*rules.tools.values(), *rules.answers.values()) for p, k in table.items()
              if k in MONEY_KINDS]
    names = set()
    for path in paths:
        parts = path.split(".")
        name = f"{parts[-2]}.*" if parts[-1] == "*" and len(parts) > 1 else parts[-1]
        if name.removesuffix(".*").isidentifier():
            names.add(name)
    return names


def entity_values(db, rules: DomainRules) -> set[str]:
    """Every string an entity path of the rules holds in `db` (names, addresses, phones, and the
    catalog's words: `25ft` and `25フィート` are values of their db, not numbers of the answer)."""
    out: set[str] = set()
    for pattern, kind in rules.db.items():
        if kind in NOT_ENTITIES:
            continue
        for _, container, key in jsonpath.find(db, pattern):
            if isinstance(container[key], str):
                out.add(container[key])
    return out


def field_names(value, out: set[str]) -> set[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            out.add(str(key))
            field_names(item, out)
    elif isinstance(value, list):
        for item in value:
            field_names(item, out)
    return out


def readings_for(rules: DomainRules, arm: Arm, rate, source_db, arm_db, latin=frozenset()) -> Reader:
    """The comparison of one arm's answers with the source's (`latin`: the words the glossary lets
    a Japanese text keep)."""
    words = set(rules.enum_literals) | set(rules.tools) | field_names(source_db, set()) | set(latin)
    words |= {w for literal in rules.enum_literals for w in literal.split()}
    # the catalog's words as the arm's db writes them (a Japanese catalog keeps `Brand A`)
    words |= {w for pattern, kind in rules.db.items() if kind in LANGUAGE_KINDS
              for _, container, key in jsonpath.find(arm_db, pattern) if isinstance(container[key], str)
              for w in container[key].split()}
    return Reader(arm, rate, money_fields(rules), words, Side(entity_values(source_db, rules)),
                  Side(entity_values(arm_db, rules)))


def call_values(arguments) -> list[str]:
    """The strings of a call's arguments, a nested call's JSON-string arguments too."""
    out: list[str] = []
    stack = [arguments]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            out.append(value)
            if value[:1] in "{[":
                try:
                    stack.append(json.loads(value))
                except ValueError:
                    pass
    return out


def task_values(task) -> list[str]:
    """The strings of a task's initial state (banking's rows of agent data) and of its golden
    calls (an address a call writes is an entity of the answers after it)."""
    initial = task.initial_state
    # rows of initial data hold amounts as digit strings ("500000"): only a call's digits are entities
    out = [v for v in call_values(initial.model_dump(mode="json")) if not v.isdigit()] if initial is not None else []
    for action in (task.evaluation_criteria.actions or []) if task.evaluation_criteria else []:
        out += call_values(action.arguments)
    return out


def money_tools(rules: DomainRules) -> set[str]:
    """Tools whose bare-number answer is an amount (`calculate` of a money expression)."""
    return {tool for tool, arguments in rules.tools.items() if "money_expression" in arguments.values()}


def compare_calls(reader: Reader, rules: DomainRules, source_task, arm_task, source_trajectory,
                  arm_trajectory) -> list[Reading]:
    """Each golden call's answers on both sides, compared (trajectories as runtime/verify.replay
    gives them: a call message, then its answer); the values of each side's task (its rows of
    initial data) are set aside with its entities."""
    out = []
    s_data, a_data = task_values(source_task), task_values(arm_task)
    amounts = money_tools(rules)
    pairs = zip(zip(source_trajectory[::2], source_trajectory[1::2]), zip(arm_trajectory[::2], arm_trajectory[1::2]))
    for index, ((s_call, s_answer), (a_call, a_answer)) in enumerate(pairs):
        s_tool, a_tool = s_call.tool_calls[0], a_call.tool_calls[0]
        for finding in reader.compare(s_answer.content, a_answer.content, s_tool.name in amounts,
                                      s_data + call_values(s_tool.arguments), a_data + call_values(a_tool.arguments)):
            out.append(Reading(index, shown_tool(s_tool, rules), finding,
                               s_answer.content or "", a_answer.content or ""))
    return out


def shown_tool(call, rules: DomainRules) -> str:
    """The tool a call runs: a discoverable tool by its own name."""
    nested = rules.tasks.nested_calls.get(call.name)
    if nested and isinstance(call.arguments, dict) and call.arguments.get(nested["name"]):
        return str(call.arguments[nested["name"]])
    return call.name


# --- every read tool over every record ------------------------------------------------------------

def read_calls(rules: DomainRules, source_db, arm_db) -> list[tuple[str, dict, dict]]:
    """(tool, the source's arguments, the arm's) for each read tool of the rules (`reads`) and
    each record of the initial db: the records of both dbs paired in their order."""
    out = []
    for tool, read in rules.reads.items():
        columns = []
        for argument, pattern in read.arguments.items():
            pairs = zip(jsonpath.find(source_db, pattern), jsonpath.find(arm_db, pattern))
            keyed = pattern.endswith("*")
            columns.append([(argument, s_key if keyed else s_container[s_key], a_key if keyed else a_container[a_key])
                            for (_, s_container, s_key), (_, a_container, a_key) in pairs])
        for row in zip(*columns):
            out.append((tool, {**read.fixed, **{a: s for a, s, _ in row}}, {**read.fixed, **{a: v for a, _, v in row}}))
    return out


def as_call(rules: DomainRules, tool: str, arguments: dict) -> tuple[str, dict]:
    """The call that runs `tool` with `arguments`: itself, or through the tool that runs it (a
    discoverable tool: its name and its arguments as a JSON text)."""
    via = rules.reads[tool].via
    if via is None:
        return tool, arguments
    nested = rules.tasks.nested_calls[via]
    return via, {nested["name"]: tool, nested["arguments"]: json.dumps(arguments, ensure_ascii=False)}


def sweep(reader: Reader, rules: DomainRules, source_env, arm_env, source_db, arm_db,
          part: tuple[int, int] = (0, 1)) -> tuple[int, list[Reading]]:
    """Every read tool over every record on both sides' environments of the initial db: how many
    calls, and what the arm's answers get wrong (each reading names the tool and its arguments).
    `part` (k, n): only every n-th call from the k-th (n workers share the calls)."""
    from tau2.data_model.message import ToolCall

    def answer(env, name: str, arguments: dict, index: int):
        return env.get_response(ToolCall(id=f"read_{index}", name=name, arguments=arguments, requestor="assistant"))

    unlocked, out, calls = set(), [], read_calls(rules, source_db, arm_db)
    amounts = money_tools(rules)
    k, n = part
    for index, (tool, s_args, a_args) in enumerate(calls):
        if index % n != k:
            continue
        unlock = rules.reads[tool].unlock
        if unlock and tool not in unlocked:
            for env in (source_env, arm_env):
                answer(env, unlock, {rules.route_arguments[unlock]: tool}, index)
            unlocked.add(tool)
        s_answer = answer(source_env, *as_call(rules, tool, s_args), index)
        a_answer = answer(arm_env, *as_call(rules, tool, a_args), index)
        shown = f"{tool}({', '.join(f'{k}={v!r}' for k, v in s_args.items())})"
        if s_answer.error != a_answer.error:
            which = "an error" if a_answer.error else "no error"
            outcome = Finding("outcome", f"{which} on the arm, the other on the source")
            out.append(Reading(index, shown, outcome, s_answer.content or "", a_answer.content or "", read=True))
            continue
        for finding in reader.compare(s_answer.content, a_answer.content, tool in amounts,
                                      call_values(s_args), call_values(a_args)):
            out.append(Reading(index, shown, finding, s_answer.content or "", a_answer.content or "", read=True))
    return len(calls), out
