"""One locale per arm (validate/locale.py, text/render.py, text/notation.py): every word of the other
locale or language planted in a text comes back as its kind; J-tau and the arms built here read
clean where the review found them wrong (telecom's country, retail's US addresses, banking's
knowledge base, airline's zone)."""

from __future__ import annotations

import json

import pytest

from conftest import PROJECT
from jtau.arms import ARMS
from jtau.maps import project_maps
from jtau.validate.locale import LocaleCheck

MAPS = project_maps(PROJECT)


def kinds(arm: str, text: str) -> set[str]:
    return {kind for kind, _ in LocaleCheck(MAPS, ARMS[arm]).findings(text)}


# (arm, a right text, the same text with a word of the other locale or language, its kind)
PLANTED = [
    ("ja-entities", "offer me ¥2,000 instead", "offer me twenty bucks instead", "currency"),
    ("ja-entities", "the amount in JPY to transfer", "the amount in USD to transfer", "currency"),
    ("ja", "2,000円のクレジット", "$20のクレジット", "currency"),
    ("ja-text", "$3,000近く", "300,000円近く", "currency"),
    ("ja-entities", "a consultant from 熊本県熊本市.", "a consultant from 熊本, 熊本県.", "place"),
    ("ja-text", "$2,500なら 2500", "¥250,000なら 2500", "currency"),
    ("ja-entities", "Date of the transaction (YYYY/MM/DD format)", "Date of the transaction (MM/DD/YYYY format)",
     "date"),
    ("ja-text", "取引日（MM/DD/YYYY形式）", "取引日（YYYY/MM/DD形式）", "date"),
    ("ja", "15:00:00 JSTです", "15:00:00 ESTです", "zone"),
    ("ja-text", "すべて米国東部時間のため", "すべて日本時間のため", "zone"),
    ("ja-text", "アメリカ国内の自宅", "United States国内の自宅", "country"),
    ("ja-entities", "at home in Japan", "at home in the 日本", "country"),
    ("ja-entities", "a marketing manager from 長崎市", "a marketing manager from Portland, OR", "place"),
    ("ja-text", "Portland, ORに住む", "長崎県長崎市に住む", "place"),
    ("ja-text", "Whole Foods Marketも二重請求だと認めています", "成城石井も二重請求だと認めています", "merchant"),
    ("ja-text", "「445 Maple Drive, Suite 394, Fort Worth, Texas, 76165」",
     "「〒76165 Texas Fort Worth 445 Maple Drive」", "address"),
    ("ja-entities", "a small business owner from 愛知県名古屋市.", "a small business owner from 名古屋, MI.", "place"),
    ("ja-entities", "a venture capitalist based in 長野県上田市.", "a venture capitalist based in Boulder, 長野県.",
     "place"),
    ("ja-entities", "I'll get ¥X in cash back", "I'll get $X in cash back", "currency"),
    ("ja-entities", "Last 4 of ID document number, AND", "Last 4 of SSN, AND", "institution"),
    ("ja-entities", "the payee is the Japan Pension Service.", "the payee is the Social Security Administration.",
     "institution"),
]


@pytest.mark.parametrize("arm,right,wrong,kind", PLANTED)
def test_a_word_of_the_other_locale_comes_back_as_its_kind(arm, right, wrong, kind):
    assert kind not in kinds(arm, right)
    assert kind in kinds(arm, wrong)


def test_words_that_only_look_like_the_other_locale_are_none():
    assert kinds("ja-entities", "0.06 pounds of CO₂ per ¥100. Check the following IN ORDER:") == set()
    assert kinds("ja-entities", "Target a specific level of CO₂ offset") == set()
    assert kinds("en", "I sometimes get paid in yen or euros") == set()  # yen, a foreign currency


@pytest.fixture(scope="module")
def arm_tasks(arms_cache):
    from jtau.arm_cache import arm_folder

    return lambda domain, arm: json.loads((arm_folder(domain, arm, PROJECT) / "tasks.json").read_text())


@pytest.mark.xdist_group("arms")  # the arms are built once, in the worker that tests them
def test_a_country_reads_in_the_texts_language(arm_tasks):
    ticket = {arm: arm_tasks("telecom", arm)[3]["ticket"] for arm in ("ja-entities", "ja-text", "ja")}
    assert "current location: at home in Japan." in ticket["ja-entities"]
    assert "現在地：アメリカ国内の自宅" in ticket["ja-text"]
    assert "日本国内の自宅" in ticket["ja"]  # J-tau's own text is unchanged
    known = arm_tasks("retail", "ja-text")[45]["user_scenario"]["instructions"]["known_info"]
    assert known.startswith("あなたはdaiki_johnson_9523です。アメリカのDenverに住んでいて")


@pytest.mark.xdist_group("arms")  # the arms are built once, in the worker that tests them
def test_a_us_address_in_japanese_text_keeps_the_sources_order(arm_tasks):
    from jtau.text.render import us_order

    ordered = us_order("{PREFECTURE_1}{CITY_1}市在住", "You live in {CITY_1}, {PREFECTURE_1}.")
    assert ordered == "{CITY_1}, {PREFECTURE_1}在住"
    known = arm_tasks("retail", "ja-text")[41]["user_scenario"]["instructions"]["known_info"]
    assert "住所は「445 Maple Drive, Suite 394, Fort Worth, Texas, 76165」です。" in known
    assert "〒" not in json.dumps(arm_tasks("retail", "ja-text"), ensure_ascii=False)


@pytest.mark.xdist_group("arms")  # the arms are built once, in the worker that tests them
def test_the_mixed_arms_policy_names_its_own_clock(arms_cache):
    from jtau.arm_cache import arm_folder

    policy = (arm_folder("airline", "ja-text", PROJECT) / "policy.md").read_text()
    assert "15:00:00 EST" in policy and "米国東部時間" in policy and "日本時間" not in policy


@pytest.mark.xdist_group("arms")
@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "banking_knowledge"])
def test_j_tau_and_every_arm_read_in_one_locale(domain, arms_cache):
    """No arm has a word of the other locale in any text it shows (an error of validate in every
    arm): retail task 90's price threshold and banking's hometowns, merchants and money words,
    which the memory wrote as text, are placeholders now."""
    from conftest import banking_here

    if domain == "banking_knowledge" and not banking_here():
        pytest.skip("banking_knowledge is tau2-bench 1.0.1's (26.3 has no such domain)")
    from jtau.arm_cache import arm_folder
    from jtau.domain import LocalizedDomain
    from jtau.rules import load_rules
    from jtau.validate.locale import check_texts

    rules = load_rules(domain)
    for arm in ARMS:
        found, read = check_texts(LocalizedDomain.read(arm_folder(domain, arm, PROJECT), rules), rules, MAPS, ARMS[arm])
        assert read > 20_000
        assert [str(f) for f in found] == [], arm


@pytest.mark.xdist_group("arms")
def test_a_price_the_task_says_as_a_bare_number_is_the_arms_money(arm_tasks):
    """Retail task 90's "more than 3000" (rules `money_in_words`): the db's dollars where the
    entities are the source's, x100 yen where they are J-tau's, in the text's notation."""
    reason = {arm: arm_tasks("retail", arm)[90]["user_scenario"]["instructions"]["reason_for_call"]
              for arm in ("en", "ja-entities", "ja-text", "ja")}
    assert "the price is more than 3000, cancel" in reason["en"]
    assert "the price is more than ¥300,000, cancel" in reason["ja-entities"]
    assert "価格が$3,000を超える場合" in reason["ja-text"]
    assert "価格が300,000円を超える場合" in reason["ja"]


@pytest.mark.xdist_group("arms")  # the arms are built once, in the worker that tests them
def test_banking_knowledge_base_reads_in_each_arms_notation(arms_cache):
    from conftest import banking_here

    if not banking_here():
        pytest.skip("banking_knowledge is tau2-bench 1.0.1's (26.3 has no such domain)")
    from jtau.arm_cache import arm_folder
    from jtau.domain import LocalizedDomain
    from jtau.rules import load_rules
    from jtau.validate.locale import check_texts

    rules = load_rules("banking_knowledge")
    for arm in ARMS:
        found, _ = check_texts(LocalizedDomain.read(arm_folder("banking_knowledge", arm, PROJECT), rules), rules, MAPS,
                               ARMS[arm])
        assert [str(f) for f in found] == [], arm


@pytest.mark.xdist_group("arms")  # the arms are built once, in the worker that tests them
def test_banking_words_the_memory_wrote_as_text_read_in_each_arms_locale(arm_tasks):
    """A hometown, a merchant as the customer names it, an amount in words and the currency in an
    idiom are placeholders: each arm renders them in its entities and its text's language."""
    from conftest import banking_here

    if not banking_here():
        pytest.skip("banking_knowledge is tau2-bench 1.0.1's (26.3 has no such domain)")
    said = {arm: [task["user_scenario"]["instructions"] for task in arm_tasks("banking_knowledge", arm)]
            for arm in ARMS}
    expected = {  # task -> arm -> what it says
        37: {"en": "from Portland, OR", "ja-entities": "from 長崎県長崎市", "ja-text": "Portland, OR在住",
             "ja": "長崎県長崎市在住"},
        39: {"en": "offer me twenty bucks?", "ja-entities": "offer me ¥2,000?", "ja-text": "$20ぽっち",
             "ja": "2,000円ぽっち"},
        57: {"en": "Every dollar counts.", "ja-entities": "Every yen counts.", "ja-text": "一ドルだって無駄に",
             "ja": "一円だって無駄に"},
        49: {"en": "five to six grand, maybe seven max", "ja-entities": "¥500,000-600,000, maybe ¥700,000 max",
             "ja-text": "$5,000-6,000、多くても$7,000", "ja": "500,000〜600,000円、多くても700,000円"},
        35: {"en": "PECO confirmed the billing error", "ja-entities": "中国電力 confirmed the billing error",
             "ja-text": "PECOも請求の誤りを認めています", "ja": "中国電力も請求の誤りを認めています"},
        # a city named like its prefecture, as one place ("from 熊本, 熊本県" before)
        56: {"en": "from Seattle, WA.", "ja-entities": "from 熊本県熊本市.", "ja-text": "Seattle, WA在住",
             "ja": "熊本県熊本市在住"},
        80: {"en": "living in Phoenix, Arizona.", "ja-entities": "living in 鹿児島県鹿児島市.",
             "ja-text": "Phoenix, Arizona在住", "ja": "鹿児島県鹿児島市在住"},
        # a competitor's card as it writes itself (the memory had it in katakana)
        40: {"en": "found the Pursuit Ink Business Preferred card",
             "ja-entities": "the Pursuit Ink Business Preferred card",
             "ja-text": "「Pursuit Ink Business Preferred」カード", "ja": "「Pursuit Ink Business Preferred」カード"},
    }
    for task, by_arm in expected.items():
        for arm, words in by_arm.items():
            assert words in said[arm][task], (task, arm)


def test_a_us_institution_reads_as_j_taus_in_english_text():
    """The knowledge base of `ja-entities` (notation, locale.yaml `institutions`): the Japanese
    customer gives the number of an ID document, not an SSN, and is paid by the Japan Pension Service."""
    from jtau.text.notation import Notation

    english = Notation(MAPS).english_in_jtau
    assert english("Last 4 of SSN, AND") == "Last 4 of ID document number, AND"
    assert english("Government-issued ID, SSN/TIN, and income details.") == (
        "Government-issued ID, ID document number, and income details.")
    assert english("provide them to the Social Security Administration") == "provide them to the Japan Pension Service"
    assert english("legal business name, EIN (if available)") == "legal business name, corporate number (if available)"
    assert english("REINSTATE the card; SSNs") == "REINSTATE the card; SSNs"  # whole words only
