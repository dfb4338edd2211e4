"""The amounts of a task's text are the source's in the arm's money (validate/text_money.py), on
the real retail data: J-tau passes with every amount read, and an amount typed otherwise, dropped
or added fails naming the field and both amounts."""

from __future__ import annotations

import copy
from decimal import Decimal

import pytest

from jtau.arms import ARMS, JTAU_ARM
from jtau.text.recognize import Recognizer
from jtau.validate import text_money
from jtau.validate.locale import task_texts


def checked(retail, tasks):
    recognizer = Recognizer.for_rules(retail.maps, retail.rules, retail.source.db, retail.glossary)
    errors, amounts = text_money.check(task_texts(retail.source.tasks, retail.rules), tasks, ARMS[JTAU_ARM],
                                       retail.maps.locale.currency.rate, recognizer, "tasks.json")
    return [str(e) for e in errors], amounts


def test_j_tau_states_every_amount_of_the_source(retail):
    errors, amounts = checked(retail, retail.domain.tasks)
    assert errors == [] and amounts == 51


@pytest.mark.parametrize("wrong,message", [
    ("30,000円", "amounts 300,000 expected, 30,000 found instead"),   # a figure typed otherwise
    ("三十万円", "amounts 300,000 expected, none found instead"),       # in words: no amount left
    ("300,000円（送料500円）", "amounts none expected, 500 found instead"),  # one the source has not
])
def test_an_amount_the_text_gets_wrong_is_an_error(retail, wrong, message):
    tasks = copy.deepcopy(retail.domain.tasks)
    reason = tasks[90]["user_scenario"]["instructions"]
    reason["reason_for_call"] = reason["reason_for_call"].replace("300,000円", wrong)
    errors, _ = checked(retail, tasks)
    assert errors == [f"tasks.json: [90].user_scenario.instructions.reason_for_call: {message}"]


def test_each_arm_reads_its_own_notation():
    arms = {name: ARMS[name] for name in ("ja", "ja-entities", "ja-text")}
    text = {"ja": "300,000〜400,000円、多くても500,000円", "ja-entities": "¥300,000-400,000, ¥500,000 at most",
            "ja-text": "$3,000-4,000、多くても$5,000"}
    for name, arm in arms.items():
        assert sorted(text_money.arm_amounts(text[name], arm).elements()) == (
            [Decimal(300000), Decimal(400000), Decimal(500000)] if arm.localizes_entities
            else [Decimal(3000), Decimal(4000), Decimal(5000)])
