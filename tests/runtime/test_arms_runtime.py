"""J-tau's arms in tau2 (runtime/registration.py): registered for every domain and variant, graded by
tau2's own rule for each task id, each environment in its arm's language and locale, and the
English-prompted Japanese customer.  Runs on whichever runtime is installed (both in CI)."""

from __future__ import annotations

import json
import re
import tomllib

import pytest
from tau2.data_model.tasks import UserScenario
from tau2.registry import registry

from conftest import PROJECT, ROOT, banking_here
from jtau.arms import ARMS, english_twin, split_domain
from jtau.domains import listed, spec
from jtau.errors import InputError
from jtau.runtime.compat import is_tau3
from jtau.runtime.tau2_entry import register

DOMAINS = ["airline", "retail", "telecom"] + (["banking_knowledge"] if banking_here() else [])
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff5e]+")
pytestmark = pytest.mark.xdist_group("arms")  # one worker builds the arms into its session cache


@pytest.fixture(scope="module")
def names(arms_cache):
    return register(PROJECT, registry)


def environment(name: str):
    options = {"retrieval_variant": "no_knowledge"} if name.startswith("banking_knowledge") else {}
    return registry.get_env_constructor(name)(**options)


def test_every_arm_of_every_variant_is_registered(names):
    expected = {f"{v.name}_{arm}" for domain in DOMAINS for v in spec(domain).variants for arm in ARMS}
    assert expected <= set(names)
    assert ("banking_knowledge_ja-text" in names) == banking_here()
    for name in names:
        base, arm = split_domain(name)
        assert arm is not None and base in {v.name for domain in listed() for v in spec(domain).variants}
    assert {"telecom-workflow_ja-entities", "telecom_full_en", "telecom_small_ja-text"} <= set(registry.get_task_sets())


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_task_of_every_arm_is_graded_by_the_rule_tau2_grades_its_own_with(names, domain):
    """On 26.3 telecom states ENV_ASSERTION (and ACTION): dropping it graded a perfect roaming
    task 0; airline and retail state none there (26.3's default, DB + COMMUNICATE)."""
    def basis(task):
        return [b.value for b in task.evaluation_criteria.reward_basis]

    own = {t.id: basis(t) for t in registry.get_tasks_loader(domain)(None)}
    for arm in ARMS:
        tasks = registry.get_tasks_loader(f"{domain}_{arm}")(None)
        assert len(tasks) == len(own)
        assert {t.id: basis(t) for t in tasks} == own, arm
    if domain == "telecom":
        assert all("ENV_ASSERTION" in b for b in own.values())
        assert sum("ACTION" in b for b in own.values()) == 32
    if domain == "retail":
        assert own["0"] == (["DB", "NL_ASSERTION"] if is_tau3() else ["DB", "COMMUNICATE"])


def tool_texts(env) -> str:
    tools = [*env.get_tools(), *(env.get_user_tools() or [] if env.user_tools else [])]
    return json.dumps([tool.openai_schema for tool in tools], ensure_ascii=False)


@pytest.mark.parametrize("domain", DOMAINS)
def test_tool_descriptions_hold_no_fact_of_the_other_locale(names, domain):
    """What the agent passes (currency, date format, zone, airport codes) is the arm's."""
    source_facts = re.compile(r"\bdollars?\b|\bUSD\b|\$\d|MM/DD/YYYY|\bEST\b|'(?:JFK|SFO|LAX|USA)'")
    jtau_facts = re.compile(r"円|JST|YYYY/MM/DD|'(?:KIX|KKJ|FUK|日本)'")
    texts = {arm: tool_texts(environment(f"{domain}_{arm}")) for arm in ARMS}
    assert not source_facts.findall(texts["ja-entities"]), domain
    assert not jtau_facts.findall(texts["ja-text"]), domain
    assert not JAPANESE.search(texts["ja-entities"].replace("日本", ""))  # English descriptions
    assert JAPANESE.search(texts["ja-text"])
    from jtau.runtime.compat import source_environment  # tau2's own (retail on 26.3: with 1.0.1's get_item_details)

    assert texts["en"] == tool_texts(source_environment(domain)(
        **({"retrieval_variant": "no_knowledge"} if domain == "banking_knowledge" else {})))
    if domain == "airline":
        assert "Payment amount in yen" in texts["ja-entities"] and "支払い金額（ドル）" in texts["ja-text"]


def call(env, name, **arguments):
    from tau2.data_model.message import ToolCall

    return env.get_response(ToolCall(id="c", name=name, arguments=arguments, requestor="assistant"))


def test_airline_arms_compute_in_their_money_and_speak_their_language(names):
    answers = {}
    for arm in ARMS:
        env = environment(f"airline_{arm}")
        answers[arm] = (call(env, "calculate", expression="10 / 3").content,
                        json.loads(call(env, "list_all_airports").content)[0]["iata"],
                        call(env, "get_user_details", user_id="nobody_1").content)
    assert answers["en"] == ("3.33", "SFO", "Error: User nobody_1 not found")
    assert answers["ja-entities"] == ("3", "KIX", "Error: User nobody_1 not found")  # the maps' order
    assert answers["ja-text"][:2] == ("3.33", "SFO") and answers["ja-text"][2].startswith("エラー")
    assert answers["ja"][:2] == ("3", "KIX") and answers["ja"][2] == answers["ja-text"][2]
    from tau2.domains.airline.tools import AirlineTools

    assert type(environment("airline_en").tools) is AirlineTools  # tau2's own environment


def test_telecom_arms_write_bills_and_messages_in_their_language_and_money(names):
    written = {}
    for arm in ARMS:
        env = environment(f"telecom_{arm}")
        result = env.tools.refuel_data("C1001", "L1001", 2.0)
        descriptions = [item.description for bill in env.tools.db.bills for item in bill.line_items
                        if "2.0" in item.description]  # the draft bill the charge went to
        written[arm] = (result["message"], descriptions[-1] if descriptions else None,
                        env.tools.suspend_line("C1001", "L1002", "test")["message"])
    assert written["en"][:2] == ("Successfully added 2.0 GB of data for line L1001 for $10.00",
                                 "Data refueling: 2.0 GB at $5.0/GB")
    assert written["ja-entities"][:2] == ("Successfully added 2.0 GB of data for line L1001 for ¥1,000",
                                          "Data refueling: 2.0 GB at ¥500/GB")
    assert written["ja-text"][:2] == ("回線L1001に2.0GBのデータを追加しました。料金は$10.00です。",
                                      "データ追加：2.0GB（1GBあたり$5.0）")
    assert written["ja"][:2] == ("回線L1001に2.0GBのデータを追加しました。料金は1,000円です。",
                                 "データ追加：2.0GB（1GBあたり500円）")
    assert written["ja-entities"][2] == "Line suspended successfully. ¥500/month holding fee will apply."
    assert written["ja-text"][2] == "回線の利用を停止しました。利用停止手数料として月額$5がかかります。"
    db = tomllib.loads((ROOT / "data" / "domains" / "telecom" / "db.toml").read_text())
    assert db["customers"][0]["customer_id"] == "C1001"


@pytest.mark.skipif(not banking_here(), reason="banking_knowledge is tau2-bench 1.0.1's")
def test_banking_arms_read_tool_text_in_their_language_and_locale(names):
    from jtau.domains.banking_knowledge.boundary import Boundary
    from jtau.maps import project_maps
    from jtau.rules import load_rules

    maps, rules = project_maps(PROJECT), load_rules("banking_knowledge")
    text = "PIN must be exactly 4 digits.\nFee: $25.00 on 03/15/2025 at 2025-11-14 03:40:00 EST"
    read = {arm: Boundary(maps, rules, ARMS[arm]).text_to_ja(text) for arm in ("ja-entities", "ja-text", "ja")}
    assert read["ja-entities"] == "PIN must be exactly 4 digits.\nFee: ¥2,500 on 2025/03/15 at 2025-11-14 03:40:00 JST"
    assert read["ja-text"].startswith("暗証番号はちょうど4桁") and read["ja-text"].endswith(
        "Fee: $25.00 on 03/15/2025 at 2025-11-14 03:40:00 EST")
    assert read["ja"].endswith("Fee: 2,500円 on 2025/03/15 at 2025-11-14 03:40:00 JST")
    env = registry.get_env_constructor("banking_knowledge_ja-entities")(retrieval_variant="bm25")
    found = call(env, "KB_search", query="credit card annual fee").content
    assert "doc_" in found or "Document" in found  # tau2's English BM25 over the arm's English documents


def test_communicate_is_graded_fairly_for_every_arm_but_en(names):
    from tau2.evaluator.evaluator_communicate import CommunicateEvaluator

    graded = CommunicateEvaluator.__dict__["evaluate_communicate_info"].__func__.jtau_domains
    assert {"airline_ja", "airline_ja-text", "airline_ja-entities", "telecom-workflow_ja-text"} <= graded
    assert not {n for n in graded if n.endswith("_en")}


# --- the English-prompted Japanese customer ---------------------------------------------------------

def simulator(instructions: str):
    from jtau.runtime.user import EnglishPromptedUserSimulator

    kwargs = {"tools": None, "instructions": instructions, "llm": "openai/x", "llm_args": {}}
    if is_tau3():
        from tau2.data_model.persona import PersonaConfig

        kwargs["persona_config"] = PersonaConfig()
    return EnglishPromptedUserSimulator(**kwargs)


def jtau_values() -> str:
    """Every value the entity maps give J-tau (kanji names, places, addresses, words): the only
    Japanese an English-prompted customer's prompt may hold besides the directive."""
    import yaml

    values: list[str] = []

    def walk(node, key=None):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and JAPANESE.search(node):
            values.append(node)

    for path in (ROOT / "entity_maps").glob("*.yaml"):
        walk(yaml.safe_load(path.read_text()))
    return "\n".join(values)


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_english_prompted_customer_reads_english_with_the_domains_entities(names, domain):
    from jtau.runtime.user import EN_PROMPT, EN_PROMPT_DIRECTIVE, EN_PROMPT_VERSION

    assert EN_PROMPT == "user_simulator_ja-en-prompt" and EN_PROMPT in registry.get_users()
    assert f"version {EN_PROMPT_VERSION}" in EN_PROMPT_DIRECTIVE.splitlines()[0]
    haystack = jtau_values()
    for arm in ("ja", "ja-text"):
        tasks = registry.get_tasks_loader(f"{domain}_{arm}")(None)
        twins = {t.id: t for t in registry.get_tasks_loader(f"{domain}_{english_twin(ARMS[arm]).name}")(None)}
        for task in tasks[:3] + tasks[-1:]:
            user = simulator(str(task.user_scenario))
            assert user.instructions == str(twins[task.id].user_scenario)
            prompt = user.system_prompt
            assert EN_PROMPT_DIRECTIVE in prompt and "###STOP###" in prompt
            japanese = JAPANESE.findall(prompt.replace(EN_PROMPT_DIRECTIVE, ""))
            if arm == "ja-text":
                assert not japanese, japanese[:5]       # the source's English, the source's entities
            else:
                assert japanese, domain                 # J-tau's names, places ...
                assert all(run in haystack for run in japanese), [r for r in japanese if r not in haystack][:5]


def test_the_english_prompted_customer_refuses_instructions_of_no_j_tau_task(names):
    with pytest.raises(InputError, match="none of a J-tau arm's"):
        simulator("Instructions:\n\tNo task says this.")
    scenario = UserScenario.model_validate(registry.get_tasks_loader("airline_en")(None)[0].user_scenario.model_dump())
    assert simulator(str(scenario)).instructions == str(scenario)  # an English arm's own instructions
