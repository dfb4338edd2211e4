from pathlib import Path

import pytest

from jtau.maps import load_maps
from jtau.rules import load_rules
from jtau.swap.localizer import Localizer
from jtau.text import Recognizer, Renderer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tools():
    maps = load_maps(ROOT / "entity_maps")
    rules = load_rules("airline")
    recognizer = Recognizer(maps, rules.tasks.frozen_tokens, {"RESERVATION_ID": {"HXDUBJ"}})
    return recognizer, Renderer(Localizer(maps))


def test_known_info_lines_collapse_to_one_template(tools):
    recognizer, _ = tools
    a = recognizer.templatize("You are Emma Kim.\nYour user id is emma_kim_9957.")
    b = recognizer.templatize("You are Mei Brown.\nYour user id is mei_brown_7075.")
    assert a.text == b.text == "You are {PERSON_1}.\nYour user id is {USER_ID_1}."


def test_render_puts_family_name_first_and_derives_the_id(tools):
    recognizer, renderer = tools
    template = recognizer.templatize("You are Mei Brown.\nYour user id is mei_brown_7075.")
    assert renderer.render(template.text, template) == "You are 鈴木 芽衣.\nYour user id is mei_suzuki_7075."


def test_names_match_whole_words_only(tools):
    recognizer, _ = tools
    template = recognizer.templatize("Liam Khan and Li met; INSIST, said Lee.")
    kinds = [e.kind for _, e in template.entities]
    assert kinds == ["PERSON", "FAMILY_NAME", "FAMILY_NAME"]
    assert "Liam" not in template.text and "INSIST" in template.text


def test_money_dates_airports_and_frozen_tokens(tools):
    recognizer, renderer = tools
    text = ("Fly LAS (Las Vegas) to JFK on May 22nd for $1,628 or 500 dollars; "
            "ids HXDUBJ, HAT271, gift_card_7773485 but PLEASE is a word. 11am est.")
    template = recognizer.templatize(text)
    out = renderer.render(template.text, template)
    assert out == ("Fly 宮崎空港（KMI） to 関西国際空港（KIX） on 5月22日 for 162,800円 or 50,000円; "
                   "ids HXDUBJ, HAT271, gift_card_7773485 but PLEASE is a word. 11am JST.")


def test_a_translated_template_is_rendered_with_the_same_entities(tools):
    recognizer, renderer = tools
    template = recognizer.templatize("You are Emma Kim.")
    assert renderer.render("あなたは{PERSON_1}です。", template) == "あなたは金子 恵美です。"


def test_thousands_and_ranges_are_one_amount_each_all_in_yen(tools):
    """"$100k" is 100,000 dollars, and both figures of "$3-4k" or "$1,500-2,000" are money: one
    placeholder each, every figure 100x (a bare second figure left in dollars would be wrong)."""
    recognizer, renderer = tools
    template = recognizer.templatize("Earns $100k, spends $3-4k a month, rent $1,500-2,000 or $50-$75 a day.")
    assert [e.surface for _, e in template.entities] == ["$100k", "$3-4k", "$1,500-2,000", "$50-$75"]
    assert renderer.render(template.text, template) == (
        "Earns 10,000,000円, spends 300,000〜400,000円 a month, rent 150,000〜200,000円 or 5,000〜7,500円 a day.")


def test_a_dollar_figure_the_rules_call_no_money_stays_a_number():
    """banking_knowledge's documents write credit scores as "$700": the rules' `not_money` keeps
    them 700 (not 70,000円), while money beside them is still yen."""
    maps = load_maps(ROOT / "entity_maps")
    rules = load_rules("banking_knowledge")
    recognizer = Recognizer(maps, rules.tasks.frozen_tokens, {}, whole_entities=True, not_money=rules.not_money)
    template = recognizer.templatize("Minimum credit score: $640\n- Annual fee: $95")
    assert [e.kind for _, e in template.entities] == ["NUMBER", "MONEY"]
    rendered = Renderer(Localizer(maps)).render(template.text, template)
    assert rendered == "Minimum credit score: 640\n- Annual fee: 9,500円"


def test_a_not_money_rule_that_is_no_regex_is_refused():
    from pydantic import ValidationError

    from jtau.rules import NotMoney

    with pytest.raises(ValidationError, match="not a regular expression"):
        NotMoney(before="score (")


@pytest.mark.parametrize("arm,said", [
    ("en", "offer me twenty bucks? three to four thousand, five at most. Every dollar counts, "
           "for every dollar you spend"),
    ("ja-entities", "offer me ¥2,000? ¥300,000-400,000, ¥500,000 at most. Every yen counts, "
                    "for every dollar you spend"),
    ("ja-text", "offer me $20? $3,000-4,000, $5,000 at most. Every ドル counts, for every dollar you spend"),
    ("ja", "offer me 2,000円? 300,000〜400,000円, 500,000円 at most. Every 円 counts, for every dollar you spend"),
])
def test_an_amount_in_words_and_the_currencys_name_are_the_arms(arm, said):
    """"twenty bucks", a range in words, a bare figure the rules' `money_in_words` names and the
    currency of an idiom are entities each arm renders (J-tau: yen; the source's: dollars, in the
    text's notation); "for every dollar" is a rate, left to notation."""
    from jtau.arms import ARMS

    maps = load_maps(ROOT / "entity_maps")
    rules = load_rules("banking_knowledge")
    words = {"three to four thousand(?=, five)": "3000-4000", "(?<=, )five(?= at most)": "5000"}
    recognizer = Recognizer(maps, rules.tasks.frozen_tokens, {}, whole_entities=True, not_money=rules.not_money,
                            money_in_words=words)
    template = recognizer.templatize("offer me twenty bucks? three to four thousand, five at most. Every dollar "
                                     "counts, for every dollar you spend")
    assert [e.kind for _, e in template.entities] == ["MONEY", "MONEY", "MONEY", "CURRENCY"]
    renderer = Renderer(Localizer.for_rules(maps, rules, ARMS[arm]))
    assert renderer.render(template.text, template) == said


def test_money_in_words_that_is_no_amount_is_refused():
    from pydantic import ValidationError

    rules = load_rules("retail").model_dump()
    with pytest.raises(ValidationError, match="not an amount in dollars"):
        type(load_rules("retail")).model_validate({**rules, "money_in_words": {"more than 3000": "3k"}})


@pytest.mark.parametrize("arm,said", [("en", "annual_income=55000"), ("ja-entities", "annual_income=5500000"),
                                      ("ja-text", "annual_income=55000"), ("ja", "annual_income=5500000")])
def test_an_amount_written_as_a_tool_takes_it_stays_bare_in_the_arms_money(arm, said):
    """banking's rules `bare_amounts`: the income a customer passes to apply_for_credit_card is the
    figure of the arm's money, as the golden action has it (no 円, no ¥, no thousands separator)."""
    from jtau.arms import ARMS

    maps = load_maps(ROOT / "entity_maps")
    rules = load_rules("banking_knowledge")
    recognizer = Recognizer(maps, {}, {}, whole_entities=True, bare_amounts=rules.bare_amounts)
    template = recognizer.templatize("annual_income=55000")
    assert [e.kind for _, e in template.entities] == ["AMOUNT"]
    assert Renderer(Localizer.for_rules(maps, rules, ARMS[arm])).render(template.text, template) == said


@pytest.mark.parametrize("arm,said", [("en", "$X plus $Y"), ("ja-entities", "¥X plus ¥Y"), ("ja-text", "$X plus $Y"),
                                      ("ja", "X円 plus Y円")])
def test_an_amount_named_by_a_letter_is_in_the_arms_money(arm, said):
    """"$X in cash back plus $Y" (banking 024, 025): a yen arm names it in yen."""
    from jtau.arms import ARMS

    maps = load_maps(ROOT / "entity_maps")
    rules = load_rules("banking_knowledge")
    template = Recognizer(maps, {}, {}, whole_entities=True).templatize("$X plus $Y")
    assert [e.kind for _, e in template.entities] == ["AMOUNT_NAME", "AMOUNT_NAME"]
    assert Renderer(Localizer.for_rules(maps, rules, ARMS[arm])).render(template.text, template) == said
