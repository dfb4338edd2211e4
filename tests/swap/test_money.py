from decimal import Decimal

import pytest

from jtau.swap.money import MoneyError, convert_amount, convert_expression, evaluate, format_yen

RATE = Decimal(100)


@pytest.mark.parametrize("value, expected", [
    (0.1, 10), (1093.34, 109334), (15.5, 1550), (100.0, 10000), (348, 34800), ("1,628", 162800),
    ("$44", 4400), (2623.69, 262369),
])
def test_amounts_convert_exactly(value, expected):
    assert convert_amount(value, RATE) == expected


def test_float_multiplication_would_be_wrong_for_a_real_price():
    # the reason for Decimal(repr(v)): 1093.34 * 100 is not 109334 in binary floating point
    assert 1093.34 * 100 != 109334
    assert convert_amount(1093.34, RATE) == 109334


def test_amount_with_sub_yen_remainder_is_an_error():
    with pytest.raises(MoneyError):
        convert_amount(0.001, RATE)
    with pytest.raises(MoneyError):
        convert_amount(True, RATE)


def test_expression_scales_amounts_not_counts_and_keeps_its_text():
    source = "2 * ((350 - 122) + (499 - 127))"
    out = convert_expression(source, RATE)
    assert out == "2 * ((35000 - 12200) + (49900 - 12700))"
    assert evaluate(out) == evaluate(source) * RATE


def test_expression_with_cents_and_division():
    assert convert_expression("2623.69 - 1126.04", RATE) == "262369 - 112604"
    assert evaluate(convert_expression("(100 + 50) / 3", RATE)) == evaluate("(100 + 50) / 3") * RATE


def test_expression_product_of_two_amounts_is_refused():
    with pytest.raises(MoneyError):
        convert_expression("(1 + 2) * (3 + 4)", RATE)


def test_yen_format():
    assert format_yen(162800, "円") == "162,800円"
