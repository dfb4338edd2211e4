"""J-tau's arms (jtau.arms, docs/ARMS.md): each a profile of the one pipeline, built on demand
into the cache (jtau.arm_cache), validated by the invariants that apply, on the real data."""

from __future__ import annotations

import json
import shutil
import tomllib

import pytest

from conftest import PROJECT, ROOT, banking_here, jtau
from jtau.arm_cache import arm_folder, cache_dir, input_key
from jtau.arms import ARMS, english_twin, split_domain
from jtau.domain import LocalizedDomain
from jtau.pipeline import Options, load_repaired, localize
from jtau.project import Project
from jtau.rules import load_rules
from jtau.util.files import dump_json

DOMAINS = ["airline", "retail", "telecom"] + (["banking_knowledge"] if banking_here() else [])
MIXED = ["ja-entities", "ja-text"]
pytestmark = pytest.mark.xdist_group("arms")  # one worker builds the arms into its session cache


@pytest.fixture(scope="module")
def folders(arms_cache):
    """Every arm of every domain here, built (once) into the session's cache."""
    return {(domain, arm): arm_folder(domain, arm, PROJECT) for domain in DOMAINS for arm in ARMS}


def read(folders, domain, arm) -> LocalizedDomain:
    return LocalizedDomain.read(folders[(domain, arm)], load_rules(domain))


def test_the_arms_are_the_2x2_of_text_language_and_entity_locale():
    assert {(a.text, a.entities) for a in ARMS.values()} == {("en", "source"), ("en", "ja"), ("ja", "source"),
                                                            ("ja", "ja")}
    assert english_twin(ARMS["ja"]).name == "ja-entities" and english_twin(ARMS["ja-text"]).name == "en"
    assert split_domain("telecom-workflow_ja-text") == ("telecom-workflow", ARMS["ja-text"])
    assert split_domain("telecom_full_en") == ("telecom_full", ARMS["en"])


def test_ja_is_the_committed_folder_and_no_other_arm_is_committed(folders):
    for domain in DOMAINS:
        assert folders[(domain, "ja")] == ROOT / "data" / "domains" / domain
        for arm in ("en", *MIXED):
            folder = folders[(domain, arm)]
            assert folder.is_relative_to(cache_dir()) and not folder.is_relative_to(ROOT)
            manifest = json.loads((folder / "manifest.json").read_text())
            assert manifest["arm"] == arm and manifest["domain"] == domain
    assert "arm" not in json.loads((ROOT / "data" / "domains" / "airline" / "manifest.json").read_text())


def test_en_is_the_source_with_j_taus_repairs(folders):
    for domain in DOMAINS:
        rules = load_rules(domain)
        source, repairs = load_repaired(rules, PROJECT)
        folder = folders[(domain, "en")]
        assert (folder / rules.files.tasks).read_bytes() == dump_json(source.tasks)
        for name in rules.files.policy_files:
            assert (folder / name).read_bytes() == source.raw[name], name
        assert LocalizedDomain.read(folder, rules).db == source.db
    tasks = json.loads((folders[("airline", "en")] / "tasks.json").read_text())
    assert tasks[0]["evaluation_criteria"]["reward_basis"] == ["DB", "COMMUNICATE"]  # τ³'s, as J-tau's


def test_every_arm_validates_with_the_invariants_that_apply(folders):
    from jtau.cli.localize import validate  # noqa: F401 - the command exists
    for domain in DOMAINS:
        for arm in ("en", *MIXED):
            result = jtau("validate", domain, "--arm", arm)
            assert result.returncode == 0, result.stdout + result.stderr
            assert "0 errors" in result.stdout
            assert ("leaks" in result.stdout) == ARMS[arm].localizes_entities  # no leak: J-tau's entities
            assert ("language QA" in result.stdout) == ARMS[arm].japanese_text  # Japanese QA: Japanese text


def test_entities_read_by_locale_and_text_language(folders):
    """Airline task 20 (a Kevin-less one-way booking) in the four arms."""
    scenario = {arm: json.loads((folders[("airline", arm)] / "tasks.json").read_text())[20]["user_scenario"]
                ["instructions"] for arm in ARMS}
    assert scenario["en"]["known_info"] == "Your name is Mia Li.\nYour user id is mia_li_3668."
    assert scenario["ja-entities"]["known_info"] == "Your name is 森 美咲.\nYour user id is misaki_mori_3668."
    assert scenario["ja-entities"]["reason_for_call"] == "You want to fly from 関西 to 熊本 on May 20 (one way)."
    assert "before 11am JST" in scenario["ja-entities"]["task_instructions"]
    assert scenario["ja-text"]["known_info"] == "あなたの名前はMia Liです。\nあなたのユーザーIDはmia_li_3668です。"
    assert "5月20日のNew YorkからSeattleへ" in scenario["ja-text"]["reason_for_call"]  # a date in Japanese notation
    # the source's "11am est", its zone in capitals
    assert "11:00（EST）より前" in scenario["ja-text"]["task_instructions"]
    ja_task = json.loads((folders[("airline", "ja")] / "tasks.json").read_text())[20]
    assert "11:00（JST）より前" in ja_task["user_scenario"]["instructions"]["task_instructions"]
    assert scenario["ja"]["known_info"] == "あなたの名前は森 美咲です。\nあなたのユーザーIDはmisaki_mori_3668です。"
    policy = {arm: (folders[("airline", arm)] / "policy.md").read_text() for arm in ARMS}
    assert "Each extra baggage is ¥5,000." in policy["ja-entities"]   # yen in English notation
    assert "追加の手荷物は1個につき$50です。" in policy["ja-text"]          # dollars, as the source writes them
    assert "追加の手荷物は1個につき5,000円です。" in policy["ja"]
    assert "15:00:00 JST" in policy["ja-entities"] and "15:00:00 EST" in policy["ja-text"]


def test_the_catalog_follows_the_text_and_money_the_entities(folders):
    """Retail: the catalog's words are the text's (the memory names them literally), prices and
    people the entity locale's."""
    product = {arm: read(folders, "retail", arm).db["products"]["9523456873"] for arm in ARMS}
    variant = {arm: next(iter(p["variants"].values())) for arm, p in product.items()}
    assert product["ja-entities"]["name"] == product["en"]["name"] == "T-Shirt"
    assert product["ja-text"]["name"] == product["ja"]["name"] == "Tシャツ"
    assert variant["ja-text"]["price"] == variant["en"]["price"] == 50.88
    assert variant["ja-entities"]["price"] == variant["ja"]["price"] == 5088
    assert variant["ja-entities"]["options"] == variant["en"]["options"]
    assert variant["ja-text"]["options"] == variant["ja"]["options"]
    users = {arm: read(folders, "retail", arm).db["users"] for arm in ARMS}
    assert users["ja-text"] == users["en"]
    known = {arm: json.loads((folders[("retail", arm)] / "tasks.json").read_text())[23]["user_scenario"]
             ["instructions"]["known_info"] for arm in ARMS}
    assert known["ja-entities"].startswith("You are 林 早紀, and you live in 熊本市中央区, 熊本県, 862-0950.")
    # a US address in Japanese text in the source's order, with its comma
    assert known["ja-text"].startswith("あなたはSofia Hernandezで、Seattle, WA（郵便番号98193）に住んでいます。")


def test_telecom_bills_frame_in_the_text_language_around_the_arms_values(folders):
    def bills(arm):
        db = tomllib.loads((folders[("telecom", arm)] / "db.toml").read_text())
        return [item["description"] for bill in db["bills"] for item in bill["line_items"]][:2], \
            db["plans"][0]["name"], db["plans"][0]["price_per_month"]

    assert bills("en") == (["Basic Plan - Line 555-123-2001", "Premium Plan - Line 555-123-2002"], "Basic Plan", 40.0)
    assert bills("ja-entities") == (["Basic Plan - Line 090-0000-2001", "Premium Plan - Line 090-0000-2002"],
                                    "Basic Plan", 4000)
    assert bills("ja-text") == (["ベーシックプラン - 回線 555-123-2001", "プレミアムプラン - 回線 555-123-2002"],
                                "ベーシックプラン", 40.0)
    assert bills("ja")[0][0] == "ベーシックプラン - 回線 090-0000-2001"


def test_a_format_in_english_writes_the_amount_in_the_arms_notation():
    from jtau.maps import project_maps
    from jtau.swap.localizer import Localizer

    maps, rules = project_maps(PROJECT), load_rules("telecom")
    item = "Data refueling: 2.0 GB at $2.0/GB"
    written = {arm: Localizer.for_rules(maps, rules, ARMS[arm]).convert("line_item", item) for arm in ARMS}
    assert written == {"en": item, "ja-entities": "Data refueling: 2.0 GB at ¥200/GB",
                       "ja-text": "データ追加：2.0GB（1GBあたり$2.0）", "ja": "データ追加：2.0GB（1GBあたり200円）"}


@pytest.mark.skipif(not banking_here(), reason="banking_knowledge is tau2-bench 1.0.1's")
def test_banking_dates_follow_the_entity_locale_and_products_the_text(folders):
    users = {arm: read(folders, "banking_knowledge", arm).db["users"]["data"] for arm in ARMS}
    user = next(iter(users["en"]))
    assert users["en"][user]["date_of_birth"].count("/") == 2 and users["en"][user]["date_of_birth"][2] == "/"
    assert users["ja-text"][user] == users["en"][user]                       # MM/DD/YYYY, the source's people
    assert users["ja-entities"][user] == users["ja"][user]                   # YYYY/MM/DD, J-tau's people
    assert users["ja"][user]["date_of_birth"][4] == "/"
    accounts = {arm: read(folders, "banking_knowledge", arm).db["accounts"]["data"] for arm in ARMS}
    key = next(iter(accounts["en"]))
    assert accounts["ja-entities"][key]["level"] == accounts["en"][key]["level"]
    assert accounts["ja-text"][key]["level"] == accounts["ja"][key]["level"] != accounts["en"][key]["level"]


def test_an_arm_is_built_once_byte_for_byte_and_again_when_an_input_changes(arms_cache, tmp_path):
    """The same inputs give the same bytes; a changed memory is a new key (the old folder goes)."""
    root = tmp_path / "project"
    for name in ("entity_maps", "glossaries", "task_patches", "data/tm"):
        shutil.copytree(ROOT / name, root / name)
    first = localize("retail", PROJECT, options=Options(offline=True, arm="ja-text")).outputs
    again = localize("retail", PROJECT, options=Options(offline=True, arm="ja-text")).outputs
    assert first == again
    folder = arm_folder("retail", "ja-text", Project(root))
    assert arm_folder("retail", "ja-text", Project(root)) == folder  # found, not built again
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == first
    key = input_key("retail", "ja-text", Project(root))
    memory = root / "data" / "tm" / "retail.jsonl"
    memory.write_bytes(memory.read_bytes() + b"\n")
    assert input_key("retail", "ja-text", Project(root)) != key
    rebuilt = arm_folder("retail", "ja-text", Project(root))
    assert rebuilt != folder and rebuilt.is_dir() and folder.is_dir()  # used lately (another checkout's?): kept
    import os
    os.utime(f"{folder}.lock", (0, 0))  # unused for long: the next build of the arm removes it
    memory.write_bytes(memory.read_bytes() + b"\n")
    third = arm_folder("retail", "ja-text", Project(root))
    assert third.is_dir() and rebuilt.is_dir() and not folder.exists()
    assert input_key("retail", "ja-entities", Project(root)) != input_key("retail", "ja-text", Project(root))


def test_localize_arm_builds_into_a_folder_and_refuses_what_is_j_taus(tmp_path, arms_cache):
    result = jtau("localize", "airline", "--arm", "ja-entities", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "airline" / "manifest.json").read_text())["arm"] == "ja-entities"
    refused = jtau("localize", "airline", "--arm", "ja-text", "--check")
    assert refused.returncode == 2 and "--check" in refused.stderr
    unknown = jtau("localize", "airline", "--arm", "fr")
    assert unknown.returncode == 2 and "no such arm" in unknown.stderr


def test_validate_arm_reads_the_folder_out_names(tmp_path):
    """`validate_arm` (what `jtau validate` prints) checks `out`/<domain> when given, J-tau's folder otherwise."""
    from jtau.arm_cache import validate_arm

    assert validate_arm("airline", "ja", PROJECT).errors == []
    shutil.copytree(ROOT / "data" / "domains" / "airline", tmp_path / "airline")
    db = json.loads((tmp_path / "airline" / "db.json").read_text())
    db["users"]["misaki_mori_3668"]["payment_methods"]["certificate_4856383"]["amount"] = 10001
    (tmp_path / "airline" / "db.json").write_text(json.dumps(db, ensure_ascii=False))
    assert [str(e) for e in validate_arm("airline", "ja", PROJECT, out=tmp_path).errors] == [
        "db.json: users.misaki_mori_3668.payment_methods.certificate_4856383.amount: 10001 != 100 x 100.0"]
