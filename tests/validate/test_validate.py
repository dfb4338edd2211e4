"""The validator catches a broken localization and says where."""

from __future__ import annotations

import copy

from jtau.domain import LocalizedDomain
from jtau.util.jsonpath import rename_keys
from jtau.validate import validate_domain


def broken(airline, change) -> list[str]:
    out = airline.domain
    domain = LocalizedDomain(out.name, copy.deepcopy(out.db), copy.deepcopy(out.tasks), dict(out.policies))
    change(domain)
    return [str(e) for e in validate_domain(airline.source, domain, airline.maps, airline.rules).errors]


def test_the_real_localization_is_clean(airline):
    assert airline.report.errors == []
    assert airline.report.stats["reservation payments identity holds"] == "2000/2000"


def test_one_wrong_amount_is_reported_with_its_path(airline):
    def change(d):
        d.db["reservations"]["4WQ150"]["flights"][0]["price"] += 1
    errors = broken(airline, change)
    assert any("reservations.4WQ150.flights[0].price: 88301 != 100 x 883" in e for e in errors)
    assert any("reservations.4WQ150: paid" in e for e in errors)


def test_a_float_amount_is_reported(airline):
    def change(d):
        d.db["users"]["misaki_mori_3668"]["payment_methods"]["certificate_4856383"]["amount"] = 10000.0
    errors = broken(airline, change)
    assert errors == ["db.json: users.misaki_mori_3668.payment_methods.certificate_4856383.amount: "
                      "amount 10000.0 is not an integer"]


def test_a_renamed_user_breaks_references_of_the_tasks(airline):
    def change(d):  # in place, keeping the key order
        rename_keys(d.db["users"], lambda k: "someone_else_9847" if k == "naoki_murakami_9847" else k)
    errors = broken(airline, change)
    assert ("tasks.json: [2].evaluation_criteria.actions[0].arguments.user_id: user_id 'naoki_murakami_9847': "
            "in the source 'noah_muller_9847' exists, here it does not") in errors


def test_two_users_merged_into_one_name_breaks_bijectivity(airline):
    def change(d):
        def walk(node):
            if isinstance(node, dict):
                if node.get("first_name") == "彩":
                    node["first_name"] = "恵美"
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)
        walk(d.db)
    errors = broken(airline, change)
    assert any("given_name: 30 distinct values in the source, 29 here" in e for e in errors)


def test_a_leaked_name_in_text_is_reported(airline):
    def change(d):
        d.tasks[0]["user_scenario"]["instructions"]["known_info"] += " Also Liam."
    errors = broken(airline, change)
    assert errors == ["tasks.json: [0].user_scenario.instructions.known_info: source term 'Liam' left"]


def test_a_golden_passenger_that_no_longer_matches_is_reported(airline):
    def change(d):
        task = next(t for t in d.tasks if t["id"] == "17")
        passenger = next(a for a in task["evaluation_criteria"]["actions"]
                         if a["name"] == "update_reservation_passengers")["arguments"]["passengers"][0]
        passenger["dob"] = "1970-06-07"
    errors = broken(airline, change)
    assert any("arguments.passengers[0]" in e and "matches 0 db records" in e for e in errors)


def test_a_value_outside_the_tau2_data_model_is_a_schema_error(airline):
    def change(d):
        d.db["reservations"]["4WQ150"]["cabin"] = "first"
    errors = broken(airline, change)
    assert any(e.startswith("db.json: reservations.4WQ150.cabin: schema:") for e in errors), errors


def test_an_id_glued_to_its_label_is_reported(airline):
    task = next(i for i, t in enumerate(airline.domain.tasks) if "予約ID XEHM4B" in json_text(t))

    def change(d):
        instructions = d.tasks[task]["user_scenario"]["instructions"]
        for key, value in instructions.items():
            if isinstance(value, str) and "予約ID XEHM4B" in value:
                instructions[key] = value.replace("予約ID XEHM4B", "予約IDXEHM4B")
    errors = broken(airline, change)
    assert len(errors) == 1 and "id glued to its label" in errors[0] and f"[{task}]." in errors[0]


def json_text(task) -> str:
    import json

    return json.dumps(task, ensure_ascii=False)


def test_a_toll_free_number_in_letters_is_no_english_left():
    """ja-text keeps the source's phones: banking's 1-800-RHO-ACCT is one of its entities, not English
    left; the same letters are English where no entity allows them."""
    from conftest import PROJECT
    from jtau.maps import project_maps
    from jtau.validate.language import english_left, source_entity_words

    text = "専用窓口1-800-RHO-ACCTまでお電話ください"
    assert english_left(text, source_entity_words(project_maps(PROJECT)), frozenset()) == []
    assert english_left(text, frozenset(), frozenset()) != []
