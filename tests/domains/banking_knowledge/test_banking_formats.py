"""banking_knowledge's formats, in both directions (swap/notations.py): what localizes the data and
what the runtime's locale boundary turns back into tau2's form must be inverses, on every value
of the real source db (tau2-bench 1.0.1's data, where it is installed) and on the edge cases."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from jtau.source.discover import default_domains_dir
from jtau.swap import notations

RATE = Decimal(100)


def source_db() -> dict | None:
    folder, _ = default_domains_dir()
    path = folder / "banking_knowledge" / "db.json" if folder else None
    return json.loads(path.read_text()) if path and path.is_file() else None


def test_dates_clock_and_money_read_back_as_the_source_wrote_them():
    assert notations.date_ja("03/15/1992") == "1992/03/15"
    assert notations.date_source("1992/03/15") == "03/15/1992"
    assert notations.date_ja("11/10/2025 14:25:33") == "2025/11/10 14:25:33"
    assert notations.date_source(notations.date_ja("11/10/2025 14:25:33")) == "11/10/2025 14:25:33"
    assert notations.date_ja("2025-06-15") == "2025-06-15"  # an ISO date stays
    assert notations.clock_ja("2025-11-14 03:40:00 EST") == "2025-11-14 03:40:00 JST"  # the wall clock stays
    assert notations.clock_source("2025-11-14 03:40:00 JST") == "2025-11-14 03:40:00 EST"
    assert notations.money_text_ja("$1,014.80", RATE, "円") == "101,480円"
    assert notations.money_text_ja("-$5.00", RATE, "円") == "-500円"
    assert notations.money_text_source("101,480円", RATE) == "$1,014.80"
    assert notations.money_decimal_ja("15000.00", RATE) == "1500000"
    assert notations.money_decimal_ja("$2024.09", RATE) == "202409"  # the code writes some balances with $
    assert notations.money_decimal_source("202409", RATE) == "2024.09"
    assert notations.money_source(100000, RATE) == 1000 and isinstance(notations.money_source(100000, RATE), int)
    assert notations.money_source(-5000, RATE) == -50
    assert notations.money_source(1234.5, RATE) == 12.345


@pytest.mark.parametrize("bad", ["3/15/1992", "1992.03.15", "March 15, 1992", None])
def test_a_date_in_no_named_format_is_refused(bad):
    with pytest.raises(notations.FormatError):
        notations.date_ja(bad)


def test_an_amount_not_exact_in_yen_is_refused():
    with pytest.raises(notations.FormatError):
        notations.money_decimal_ja("10.005", RATE)


def test_every_source_date_and_amount_round_trips():
    """Each MM/DD/YYYY date, "$" amount and decimal balance of the real db: J-tau's form and
    back gives the source's value (amounts as the code parses them: `_parse_balance` strips $ and ,)."""
    db = source_db()
    if db is None:
        pytest.skip("tau2-bench 1.0.1's banking_knowledge data not found (TAU2_DATA_DIR)")
    dates = money = 0
    for table in db.values():
        for record in table["data"].values():
            for value in record.values():
                if isinstance(value, str) and notations.MDY.match(value):
                    assert notations.date_source(notations.date_ja(value)) == value
                    dates += 1
                elif isinstance(value, str) and value.startswith("$"):
                    back = notations.money_text_source(notations.money_text_ja(value, RATE, "円"), RATE)
                    assert Decimal(back.lstrip("$").replace(",", "")) == Decimal(value.lstrip("$").replace(",", ""))
                    money += 1
    assert dates == 774 and money == 397  # every date and "$" amount of the real db was checked
