"""What every J-tau domain in tau2 shares: a tool class that is tau2's own with a few tools
overridden and every description in Japanese, and the domain object tau2's registry wants
(an environment constructor, tasks and splits read from the localized folder).

The per-domain modules (domains/airline/environment.py, domains/retail/environment.py) say only what differs:
which tools hold locale facts, and how they are computed in yen.  Each builds any arm
(jtau.arms): the overrides where the entities are J-tau's, the Japanese descriptions and
messages where the text is Japanese; `en` is tau2's own environment (runtime/registration.py).
"""

from __future__ import annotations

import functools
import inspect
import json
import re
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from types import FunctionType
from typing import TypeVar

import orjson
import yaml
from pydantic import BaseModel
from tau2.data_model.tasks import Task
from tau2.environment.environment import Environment
from tau2.environment.toolkit import TOOL_ATTR, TOOL_TYPE_ATTR, ToolKitBase

from jtau import dataset_files, domains
from jtau.runtime.compat import adapt_task
from jtau.runtime.messages import render, table
from jtau.runtime.tool_errors import japanese_error
from jtau.swap.money import yen_in
from jtau.text.notation import Notation

ARG_TYPE = re.compile(r"^\s*(\w+)\s*\(([^)]+)\)\s*:", re.MULTILINE)
DB = TypeVar("DB", bound=BaseModel)


def arg_types(original: str | None) -> dict[str, str]:
    """`name -> "bool, optional"` from an English docstring's `name (bool, optional): ...` lines."""
    args = re.split(r"\n\s*Args:\s*\n", original or "", maxsplit=1)
    if len(args) < 2:
        return {}
    section = re.split(r"\n\s*Returns:\s*\n", args[-1])[0]
    return {m[1]: m[2] for m in ARG_TYPE.finditer(section)}


def docstring(spec: dict, types: dict[str, str] | None = None) -> str:
    """A Google-style docstring (what tau2 parses into the tool schema) from the YAML entry;
    `types` keeps the English docstring's `(type, optional)` (banking's discoverable tools are
    described to the agent from them)."""
    types = types or {}
    parts = [spec["summary"]]
    if spec.get("args"):
        parts.append("Args:\n" + "\n".join(
            f"    {name}{f' ({types[name]})' if name in types else ''}: {text}" for name, text in spec["args"].items()))
    if spec.get("returns"):
        parts.append(f"Returns:\n    {spec['returns']}")
    if spec.get("raises"):
        parts.append("Raises:\n" + "\n".join(f"    ValueError: {text}" for text in spec["raises"]))
    return "\n\n".join(parts)


def descriptions(domain: str, toolkit: str = "tools") -> dict:
    """The Japanese descriptions of a domain's toolkit (its folder's `tools.ja.yaml`, or
    `user_tools.ja.yaml`: the customer's)."""
    path = domains.spec(domain).path(f"{toolkit}.ja.yaml")
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def arm_descriptions(domain: str, arm, maps,
                     toolkit: str = "tools") -> tuple[dict, Callable[[str | None], str | None] | None]:
    """(the descriptions table, a function of tau2's English docstrings or None) of an arm
    (jtau.arms): J-tau's Japanese table; the same in the source's notation (`ja-text`); tau2's
    English in J-tau's notation (`ja-entities`: text/notation.py); tau2's own (`en`)."""
    if arm.japanese_text:
        texts = descriptions(domain, toolkit)
        return (texts if arm.localizes_entities else Notation(maps).table_in_source(texts)), None
    return {"tools": {}}, (Notation(maps).english_in_jtau if arm.localizes_entities else None)


def whole_yen_calculate(self, expression):
    """tau2's `calculate` rounds to cents; yen have no minor unit."""
    if not all(char in "0123456789+-*/(). " for char in expression):
        raise ValueError("Invalid characters in expression")
    value = Decimal(repr(float(eval(expression, {"__builtins__": None}, {}))))
    return str(int(value.to_integral_value()))


def overlay_class(base: type[ToolKitBase], name: str, overrides: dict, texts: dict,
                  signature: Callable[[Callable], inspect.Signature] | None = None, keep_types: bool = False,
                  document: Callable[[str | None], str | None] | None = None) -> type[ToolKitBase]:
    """`base` (a tau2 toolkit) with `overrides` (tool name -> function) and the Japanese
    docstrings of `texts["tools"]`; `signature(original)` may give a tool another signature
    (for argument models with Japanese field descriptions); `keep_types` writes each argument's
    English `(type)` into the Japanese docstring; `document(docstring)` rewrites the English
    docstring of a tool `texts` does not describe (an English arm's notation, arm_descriptions)."""
    attrs = {}
    for tool_name in object.__new__(base)._func_tools:  # the class's tools, without building one
        original = getattr(base, tool_name)
        if tool_name not in overrides:
            def tool(self, *args, __original=original, **kwargs):
                return __original(self, *args, **kwargs)
        else:  # a copy: one function may serve several arms' classes
            shared = overrides[tool_name]
            tool = FunctionType(shared.__code__, shared.__globals__, shared.__name__, shared.__defaults__,
                                shared.__closure__)
            tool.__kwdefaults__ = shared.__kwdefaults__
        functools.update_wrapper(tool, original, assigned=("__module__", "__name__", "__qualname__"))
        tool_signature = signature(original) if signature else inspect.signature(original)
        tool.__signature__ = tool_signature  # type: ignore[attr-defined]  # what inspect.signature reads
        types = arg_types(original.__doc__) if keep_types else None
        tool.__doc__ = docstring(texts["tools"][tool_name], types) if tool_name in texts["tools"] else \
            document(original.__doc__) if document else original.__doc__
        setattr(tool, TOOL_ATTR, True)
        setattr(tool, TOOL_TYPE_ATTR, getattr(original, TOOL_TYPE_ATTR))
        attrs[tool_name] = tool
    return type(name, (base,), attrs)


class JapaneseJson:
    """Tool results as the agent reads them: tau2 dumps them with `json.dumps` defaults, which
    writes every Japanese character as a \\uXXXX escape ("\\u9ad8\\u6a4b" for 高橋).  A J-tau
    agent reads the characters themselves; the values are unchanged.  Where the arm's text is
    Japanese (`japanese_text`), a failed call reads "エラー：..." (tool_errors.py) and what a tool
    returns reads in Japanese (`tool_results.ja.yaml`: a returned text, or the "message" of a
    returned object), its amounts as the arm writes money (`money`)."""

    japanese_text = True
    results: str | None = "tool_results"  # the table of returned texts (None: the domain's own)
    money = staticmethod(str)             # an amount of the arm's money, as the arm's text writes it

    @classmethod
    def to_json_str(cls, resp) -> str:
        text = super().to_json_str(resp)  # type: ignore[misc]  # a mixin: Environment follows it in the MRO
        if isinstance(resp, str):
            return text
        return json.dumps(json.loads(text), ensure_ascii=False)

    def get_response(self, message):
        response = super().get_response(message)
        if not self.japanese_text:
            return response
        if response.error:
            response.content = japanese_error(response.content)
        elif self.results is not None:
            response.content = japanese_result(response.content, table(self.results), self.money)
        return response


def japanese_result(content: str, results, money) -> str:
    """A tool's answer in Japanese: its text, or the "message" of the object it returned."""
    if not isinstance(content, str):
        return content
    if content.startswith("{") and '"message"' in content:
        try:
            data = json.loads(content)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("message"), str):
            data["message"] = render(results, data["message"], amount=money)
            return json.dumps(data, ensure_ascii=False)
    return render(results, content, amount=money)


def arm_money(arm, maps) -> Callable[[str], str]:
    """How a tool's answer writes an amount of the arm's db in Japanese text: `10,000円`, or the
    source's `$100` where the arm keeps the source's money."""
    suffix = maps.locale.currency.suffix

    def money(figure: str) -> str:
        try:
            amount = Decimal(figure)
        except ArithmeticError:
            return figure
        if not arm.localizes_entities:
            return f"${int(amount):,}" if amount == amount.to_integral_value() else f"${amount:,.2f}"
        return yen_in("ja", int(amount), suffix) if amount == amount.to_integral_value() else f"{amount:,}{suffix}"

    return money


class JaEnvironment(JapaneseJson, Environment):
    """tau2's Environment, with tool results in readable Japanese."""


def environment_class(base: type, arm, maps) -> type:
    """`base` (JaEnvironment, JaTelecomEnvironment ...) for an arm (jtau.arms): tau2's English
    messages where its text is English; Japanese ones, amounts written as the arm writes money."""
    attrs = {"japanese_text": arm.japanese_text, "money": staticmethod(arm_money(arm, maps))}
    return type(f"{arm.name.title().replace('-', '')}{base.__name__}", (base,), attrs)


class LocalizedTasks:
    """Tasks and splits of a localized folder (`self.folder`) of tau2 domain `self.source`, as
    tau2's loaders return them (each task as the installed tau2 grades its own task of that id:
    runtime/compat.adapt_task)."""

    folder: Path
    source: str

    def get_tasks(self, task_split_name: str | None = "base", file: str = "tasks.json") -> list[Task]:
        tasks = [Task.model_validate(adapt_task(t, self.source))
                 for t in json.loads(dataset_files.read_bytes(self.folder, file))]
        if task_split_name is None:
            return tasks
        splits = self.get_tasks_split()
        if task_split_name not in splits:
            raise ValueError(f"Invalid task split name: {task_split_name}; valid: {', '.join(splits)}")
        return [t for t in tasks if t.id in splits[task_split_name]]

    def get_tasks_split(self) -> dict[str, list[str]]:
        return json.loads(dataset_files.read_bytes(self.folder, "split_tasks.json"))


def load_db(db_model: type[DB], folder: Path, name: str = "db.json") -> DB:
    """`db_model.load(folder/name)` as tau2 does it (parse, then validate), parsed by orjson: a
    simulation builds its environment three times (run, then the evaluator's two replays), and
    the standard parser was a third of each build."""
    return db_model.model_validate(orjson.loads(dataset_files.read_bytes(folder, name)))


class JaDomain(LocalizedTasks):
    """A J-tau domain as tau2 wants it: an environment constructor, tasks and splits, all
    read from the localized folder (`data/domains/<domain>/`)."""

    def __init__(self, name: str, folder: Path, tools: type, db_model: type[BaseModel],
                 environment: type = JaEnvironment):
        self.name, self.folder, self.tools, self.db_model = name, folder, tools, db_model
        self.source, self.environment = name.rpartition("_")[0], environment

    def get_environment(self, db=None, solo_mode: bool = False) -> Environment:
        if solo_mode:
            raise ValueError(f"{self.name} does not support solo mode")
        if db is None:
            db = load_db(self.db_model, self.folder)
        policy = (self.folder / "policy.md").read_text(encoding="utf-8")
        return self.environment(domain_name=self.name, policy=policy, tools=self.tools(db))

    def registrations(self) -> list[tuple[str, object, object, object]]:
        """(name, environment constructor, tasks loader, splits loader) for tau2's registry."""
        return [(self.name, self.get_environment, self.get_tasks, self.get_tasks_split)]
