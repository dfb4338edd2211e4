"""A customer's hometown is their address's city in every arm (validate/hometowns.py), on the real
retail data: J-tau passes, and a hometown moved to another city, in the text or in the db, fails
naming the task."""

from __future__ import annotations

import copy

from jtau.arms import ARMS, JTAU_ARM
from jtau.validate.all_checks import _hometowns


def test_j_tau_says_each_hometown_the_source_confirms(retail):
    errors, checked = _hometowns(retail.source, retail.domain, retail.maps, retail.rules, retail.glossary,
                                 ARMS[JTAU_ARM])
    assert errors == [] and checked == 5


def planted(retail, edit):
    domain = copy.deepcopy(retail.domain)
    edit(domain)
    return [str(e) for e in _hometowns(retail.source, domain, retail.maps, retail.rules, retail.glossary,
                                       ARMS[JTAU_ARM])[0]]


def test_a_hometown_the_text_moves_is_an_error(retail):
    def move(domain):
        known = domain.tasks[69]["user_scenario"]["instructions"]
        known["known_info"] = known["known_info"].replace("大阪府大阪市", "福岡県福岡市")

    [error] = planted(retail, move)
    assert error.startswith("tasks.json: [69].user_scenario.instructions.known_info: the source's hometown "
                            "'New York, New York' reads '大阪府大阪市'")


def test_an_address_the_db_moves_is_an_error(retail):
    def move(domain):
        for user in domain.db["users"].values():
            if user["address"]["city"] == "大阪市北区":
                user["address"]["city"], user["address"]["state"] = "福岡市博多区", "福岡県"

    errors = planted(retail, move)
    assert errors and all("is not the customer's address" in e for e in errors)
    assert any(e.startswith("tasks.json: [69].") for e in errors)


def test_a_hometown_only_part_localized_is_an_error(retail):
    """Where the entities are J-tau's, a hometown the maps localize only in part (a city the maps
    lack before a state they have: "Bisbee, 鹿児島県") is an error, though its state is right."""
    from jtau.swap.localizer import Localizer
    from jtau.text import Renderer
    from jtau.text.recognize import Recognizer
    from jtau.validate import hometowns

    recognizer = Recognizer.for_rules(retail.maps, retail.rules, retail.source.db, retail.glossary)
    renderer = Renderer(Localizer.for_rules(retail.maps, retail.rules, ARMS["ja-entities"]), retail.glossary)
    partial = hometowns.Hometown(69, (69, "user_scenario", "instructions", "known_info"), "Bisbee, Arizona", (0,))
    [finding] = hometowns.check([partial], retail.domain.tasks, retail.domain.db, retail.rules.customers, recognizer,
                                renderer, "tasks.json")
    error = str(finding)
    assert "is only part J-tau's: 'Bisbee, 鹿児島県'" in error
