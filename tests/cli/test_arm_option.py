"""One parser for every option that names arms (cli/common.arms_named), with one message."""

from __future__ import annotations

import pytest

from jtau.cli.common import arm_named, arms_named
from jtau.errors import UnknownName


def test_arms_are_named_once_each_in_order_and_all_where_allowed():
    assert arms_named(["ja", "en", "ja"]) == ["ja", "en"]
    assert arms_named(["ja", "all"], allow_all=True) == ["en", "ja-entities", "ja-text", "ja"]
    assert arm_named("ja-text") == "ja-text"


@pytest.mark.parametrize("call,message", [
    (lambda: arm_named("jp"), "--arm jp: no such arm; arms: en, ja-entities, ja-text, ja"),
    (lambda: arms_named(["en", "all"]), "--arm all: no such arm; arms: en, ja-entities, ja-text, ja"),
    (lambda: arms_named(["xx"], allow_all=True), "--arm xx: no such arm; arms: en, ja-entities, ja-text, ja, or all"),
    (lambda: arms_named(["en", "xx"], "--arms"), "--arms xx: no such arm; arms: en, ja-entities, ja-text, ja"),
])
def test_a_name_that_is_no_arm_is_one_message(call, message):
    with pytest.raises(UnknownName) as caught:
        call()
    assert caught.value.message == message and caught.value.exit_code == 2
