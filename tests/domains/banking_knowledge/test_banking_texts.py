"""banking_knowledge's fixed texts, checked against tau2-bench 1.0.1's own code and data: the
Japanese tool descriptions (every tool, every argument), the tool messages (every text the tools
write, with its fields), the product catalog (one to one, every product the db, the tasks and the
tool tables name) and the domain glossary.  tau2 26.3 has no banking_knowledge: skipped there."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from jtau.errors import InputError
from jtau.glossary import load_glossary
from jtau.runtime.compat import is_tau3


def _tau3() -> bool:
    try:
        return is_tau3()
    except InputError:  # tau2 not installed at all
        return False


pytestmark = pytest.mark.skipif(not _tau3(), reason="banking_knowledge is tau2-bench 1.0.1's (26.3 has no such domain)")

BANKING = ROOT / "src" / "jtau" / "domains" / "banking_knowledge"
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
FIELD = re.compile(r"\{(\w+)\}")
PRODUCT_FIELDS = {"level", "card_type", "credit_card_type", "referred_account_type", "account_class", "card_name"}


def load(name: str) -> dict:
    return yaml.safe_load((BANKING / name).read_text(encoding="utf-8"))


def extraction():
    script = ROOT / "scripts" / "regenerate" / "extract_banking_messages.py"
    spec = importlib.util.spec_from_file_location("extract_banking_messages", script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def toolkits() -> list[type]:
    from tau2.domains.banking_knowledge import retrieval_mixins
    from tau2.domains.banking_knowledge.tools import KnowledgeTools, KnowledgeUserTools

    mixins = [cls for cls in vars(retrieval_mixins).values()
              if isinstance(cls, type) and cls.__name__.endswith("Mixin")]
    return [KnowledgeTools, KnowledgeUserTools, *mixins]


def tools_of(cls: type) -> dict:
    from tau2.environment.toolkit import TOOL_ATTR

    return {name: f for name, f in vars(cls).items() if callable(f) and getattr(f, TOOL_ATTR, False)}


def banking_dir() -> Path:
    from jtau.runtime.compat import require_tau2_data

    return require_tau2_data() / "tau2" / "domains" / "banking_knowledge"


# --- tool descriptions -------------------------------------------------------------------------

def test_every_tool_of_both_toolkits_has_a_japanese_description_with_every_argument():
    from tau2.domains.banking_knowledge.tools import parse_discoverable_tool_docstring
    from tau2.environment.toolkit import DISCOVERABLE_ATTR

    from jtau.runtime.overlay import docstring

    texts = load("tools.ja.yaml")["tools"]
    seen, discoverable = set(), 0
    for cls in toolkits():
        for name, tool in tools_of(cls).items():
            seen.add(name)
            assert name in texts, f"{cls.__name__}.{name} has no Japanese description"
            spec = texts[name]
            arguments = [p for p in inspect.signature(tool).parameters if p != "self"]
            assert sorted(spec.get("args") or {}) == sorted(arguments), name
            returns = [spec["returns"]] if spec.get("returns") else []
            for text in [spec["summary"], *(spec.get("args") or {}).values(), *returns]:
                assert isinstance(text, str) and JAPANESE.search(text) and "\n" not in text, (name, text)
            assert bool(spec.get("returns")) == bool(inspect.getdoc(tool) and "Returns:" in inspect.getdoc(tool)), name
            if getattr(tool, DISCOVERABLE_ATTR, False):
                discoverable += 1
                # what the agent reads when it unlocks the tool: tau2 parses the docstring jtau builds
                def twin():
                    pass
                twin.__doc__ = docstring(spec)
                twin.__name__ = name
                parsed = parse_discoverable_tool_docstring(twin)
                # (without an Args section tau2 keeps the Returns text in the description, as in English)
                assert parsed["description"].split("\n\nReturns:")[0] == spec["summary"], name
                assert list(parsed["parameters"]) == list(spec.get("args") or {}), name
                descriptions = {p["description"] for p in parsed["parameters"].values()}
                assert descriptions == set((spec.get("args") or {}).values())
    from tau2.domains.banking_knowledge.tools import KnowledgeTools, KnowledgeUserTools

    agent, user = tools_of(KnowledgeTools), tools_of(KnowledgeUserTools)
    assert len(agent) + len(user) >= 68 and discoverable >= 48
    assert set(texts) == seen, f"descriptions of tools tau2 does not have: {sorted(set(texts) - seen)}"


def test_tool_descriptions_keep_the_literals_the_tools_compare_and_write_yen():
    texts = load("tools.ja.yaml")["tools"]
    from tau2.domains.banking_knowledge.tools import KnowledgeTools

    for name, tool in tools_of(KnowledgeTools).items():
        english = inspect.getdoc(tool) or ""
        japanese = json.dumps(texts[name], ensure_ascii=False)
        for literal in re.findall(r"'([a-z0-9]+(?:_[a-z0-9]+)+|[a-z]+)'", english):
            assert f"'{literal}'" in japanese, (name, literal)  # 'keep_active', 'checking', 'damaged'
    everything = (BANKING / "tools.ja.yaml").read_text(encoding="utf-8").split("\ntools:\n", 1)[1]
    assert "$" not in everything and "dollar" not in everything and "USD" not in everything
    assert "50,000円" in texts["file_debit_card_transaction_dispute_6281"]["args"]["police_report_filed"]
    assert "MM/DD/YYYY" not in everything and "EST" not in everything


# --- tool messages -----------------------------------------------------------------------------

def test_every_message_the_tools_write_is_in_japanese_with_its_fields():
    module = extraction()
    found = module.extract()  # the installed tau2's code
    table = load("messages.ja.yaml")
    assert module.problems(found, table) == []
    kinds = Counter(info.kind for info in found.values())
    errors = [k for k, info in found.items() if info.kind == "message" and k.startswith("Error")]
    assert kinds["message"] >= 350 and len(errors) >= 150  # not blind: 203 `return "Error: ..."` in tools.py
    for section in ("messages", "field_values"):
        for english, japanese in table[section].items():
            assert JAPANESE.search(japanese) or not re.search(r"[a-z]{3}", FIELD.sub("", english)), (english, japanese)
            assert "$" not in japanese, english  # the runtime writes yen where tau2 wrote "$"
            if english.startswith("Error: "):
                assert japanese.startswith(table["prefix"]), english
            assert Counter(FIELD.findall(japanese)) == Counter(set(FIELD.findall(english))), english


def test_the_extraction_reads_fields_as_the_keys_name_them(tmp_path):
    module = extraction()
    (tmp_path / "tools.py").write_text(
        'def tool(self, amount, reason="Customer requested closure", waive=False):\n'
        '    if amount <= 0:\n'
        '        return f"Error: Credit of ${amount:.2f} refused ({reason.replace(\'_\', \' \').title()})."\n'
        '    method = "Expedited" if waive else "Standard"\n'
        '    parts = [f"Method: {method}", f"Status: {card.get(\'status\')}"]\n'
        '    parts.append(f"Reason: {reason} / {reason}")\n'
        '    valid = ["fraud_suspected", "lost"]\n'
        '    return "\\n".join(parts)\n')
    (tmp_path / "retrieval_mixins.py").write_text("")
    (tmp_path / "db_query.py").write_text("")
    found = module.extract(tmp_path)
    assert {k for k, v in found.items() if v.kind == "message"} == {
        "Error: Credit of ${amount} refused ({reason}).", "Method: {method}", "Status: {status}",
        "Reason: {reason} / {reason_2}"}
    assert {k for k, v in found.items() if v.kind == "value"} >= {"Expedited", "Standard", "Fraud Suspected", "Lost",
                                                                 "Customer requested closure"}
    assert module.problems(found, {"messages": {"Method: {method}": "方法: {method}{method}"}}) != []


# --- catalog and glossary ----------------------------------------------------------------------

def banking_products() -> dict[str, str]:
    return yaml.safe_load((ROOT / "entity_maps" / "catalog.yaml").read_text(encoding="utf-8"))["banking_products"]


def product_names(value, out: set[str]) -> set[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in PRODUCT_FIELDS and isinstance(item, str) and item != "N/A":
                out.add(item)
            product_names(item, out)
    elif isinstance(value, list):
        for item in value:
            product_names(item, out)
    return out


def test_the_catalog_is_one_to_one_and_names_every_product_of_the_db_tasks_and_tool_tables():
    from tau2.domains.banking_knowledge import tools
    from tau2.domains.banking_knowledge.tools import KnowledgeUserTools

    catalog = banking_products()
    shared = Counter(catalog.values())
    assert not [ja for ja, n in shared.items() if n > 1], "two products share a rendering"
    assert all(JAPANESE.search(ja) for ja in catalog.values())
    folder = banking_dir()
    names = product_names(json.loads((folder / "db.json").read_text()), set())
    assert {"Blue Account", "Gold Rewards Card", "Cobalt Blue", "Light Green Account"} <= names  # not blind
    for path in sorted(folder.glob("tasks/task_*.json")):
        task = json.loads(path.read_text())
        product_names(task.get("initial_state"), names)
        for action in (task.get("evaluation_criteria") or {}).get("actions") or []:
            arguments = action.get("arguments") or {}
            product_names(arguments, names)
            if isinstance(arguments.get("arguments"), str):
                product_names(json.loads(arguments["arguments"]), names)
    names |= set(KnowledgeUserTools.VALID_CREDIT_CARD_TYPES) | set(KnowledgeUserTools.CREDIT_CARD_REWARDS)
    # the fee and limit tables inside the tools (early closure by product, default ATM limits in lower case)
    lower = {name.lower(): name for name in catalog}
    for node in ast.walk(ast.parse(inspect.getsource(tools))):
        if isinstance(node, ast.Dict) and node.keys and all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.lower().endswith(" account")
                for k in node.keys):
            for key in node.keys:
                assert key.value in catalog or key.value.lower() in lower, key.value
    missing = sorted(names - set(catalog))
    assert not missing, f"products without a Japanese rendering: {missing}"


def test_the_banking_glossary_merges_with_the_shared_one_and_keeps_its_terms_apart():
    shared = load_glossary(ROOT / "glossaries" / "ja.yaml")
    own = load_glossary(ROOT / "glossaries" / "ja.banking_knowledge.yaml")
    merged = shared.merged(own)  # no term or rendering of ja.yaml repeated
    assert len(own.terms) >= 60 and sum(t.mode == "hint" for t in own.terms.values()) >= len(own.terms) - 2
    hints = merged.hints_in("Transfer from your checking account to your savings account; dispute the annual fee.")
    assert hints == {"annual fee": "年会費", "checking account": "普通預金口座", "dispute": "異議申し立て",
                     "savings account": "貯蓄預金口座"}
    products = set(banking_products().values())
    assert not {t.ja for t in own.terms.values()} & products


def test_the_tool_texts_use_the_glossary_renderings_the_pipeline_would_demand():
    """Every glossary term in an English docstring or message has its rendering in the Japanese
    (the check jtau applies to translated segments), so tools, tasks and documents share words."""
    import docstring_parser
    from tau2.domains.banking_knowledge.tools import parse_discoverable_tool_docstring

    glossary = load_glossary(ROOT / "glossaries" / "ja.yaml").merged(
        load_glossary(ROOT / "glossaries" / "ja.banking_knowledge.yaml"))
    fixed = {surface: glossary.terms[term].ja for surface, term in glossary.surfaces("enforce").items()}
    pairs = []
    texts = load("tools.ja.yaml")["tools"]
    for cls in toolkits():
        for name, tool in tools_of(cls).items():
            parsed, spec = parse_discoverable_tool_docstring(tool), texts[name]
            pairs.append((parsed["description"].split("\n\nReturns:")[0], spec["summary"]))
            pairs += [(p["description"], spec["args"][arg]) for arg, p in parsed["parameters"].items()]
            returns = docstring_parser.parse(inspect.getdoc(tool)).returns
            if returns:
                pairs.append((returns.description, spec["returns"]))
    table = load("messages.ja.yaml")
    pairs += [pair for section in ("messages", "field_values") for pair in table[section].items()]
    exceptions = {"Freeze Pending Investigation"}  # "pending" here is "until": 調査完了まで
    missing = []
    for english, japanese in pairs:
        if english in exceptions:
            continue
        wanted = dict(glossary.hints_in(english))
        wanted |= {s: ja for s, ja in fixed.items() if re.search(rf"(?<![\w-]){re.escape(s)}(?![\w-])", english)}
        missing += [(english[:60], term, ja) for term, ja in wanted.items() if ja not in japanese]
    assert len(pairs) > 700 and not missing, missing
