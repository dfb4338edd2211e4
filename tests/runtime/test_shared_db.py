"""Environments over one shared validated db (runtime/shared_db.py) behave as environments
over a db validated for each, and hash to tau2's own digest: on the real airline and retail
tasks that write."""

from __future__ import annotations

import functools
import json

import pytest
from tau2.data_model.tasks import Task

from conftest import PROJECT, ROOT
from jtau.errors import CheckFailed
from jtau.pipeline import load_repaired
from jtau.rules import load_rules
from jtau.runtime.domains import runtime_domain
from jtau.runtime.shared_db import Databases, Shared, Validated
from jtau.runtime.verify import replay

WRITES = {"airline": {"book_reservation", "cancel_reservation", "update_reservation_flights",
                      "update_reservation_passengers", "update_reservation_baggages", "send_certificate"},
          "retail": {"cancel_pending_order", "exchange_delivered_order_items", "modify_pending_order_address",
                     "modify_pending_order_items", "modify_pending_order_payment", "modify_user_address",
                     "return_delivered_order_items"}}


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_shared_records_give_the_same_final_dbs_as_validated_ones(domain, domains_dir):
    runtime = runtime_domain(domain)
    source, _ = load_repaired(load_rules(domain), PROJECT, domains_dir)
    make = runtime.source_environment()
    [model] = runtime.models().values()
    shared, validated = Shared(model, source.db), Validated(model, source.db)
    environments = Databases({"db": shared})
    pristine = make(db=validated.fresh()).get_db_hash()  # tau2's own hash
    assert environments.environment(make).get_db_hash() == pristine
    start = environments.environment(make).tools.db.model_dump()
    writing = [Task.model_validate(t) for t in source.tasks
               if {a["name"] for a in t["evaluation_criteria"]["actions"] or []} & WRITES[domain]][:12]
    assert len(writing) == 12
    for task in writing:  # one after another over the same shared records
        env_shared, _, outcomes_shared = replay(lambda: environments.environment(make), task)
        env_validated, _, outcomes_validated = replay(lambda: make(db=validated.fresh()), task)
        assert outcomes_shared == outcomes_validated
        assert env_shared.get_db_hash() == env_validated.get_db_hash() != pristine, task.id
        final = env_validated.tools.db.model_dump()
        assert env_shared.tools.db.model_dump() == final, task.id
        dumped = runtime.dump(env_shared, environments, start)  # from `start` and the changed records
        differing = [name for name in final if json.dumps(dumped.get(name)) != json.dumps(final[name])]
        assert list(dumped) == list(final) and not differing, (task.id, differing)  # every value, in tau2's order
        assert environments.environment(make).get_db_hash() == pristine, task.id
        assert not environments.changed()


def test_a_record_changed_through_iteration_is_caught(domains_dir):
    runtime = runtime_domain("airline")
    source, _ = load_repaired(load_rules("airline"), PROJECT, domains_dir)
    [model] = runtime.models().values()
    shared = Shared(model, source.db)
    db = shared.fresh()
    user_id = next(iter(db.users))
    db.users[user_id].email = "changed@example.com"  # a lookup: this db's own copy
    assert not shared.changed() and shared.fresh().users[user_id].email != "changed@example.com"
    next(iter(db.flights.values())).origin = "XXX"  # iteration reads the shared record
    assert shared.changed()


@pytest.mark.parametrize("jobs", [1, 2])  # the read calls in this process, or shared by two workers
def test_verify_stops_when_a_tool_changes_a_shared_record(monkeypatch, jobs):
    from tau2.domains.airline.tools import AirlineTools

    from jtau.errors import CheckFailed
    from jtau.runtime.verify import verify

    original = AirlineTools.get_user_details

    @functools.wraps(original)  # keeps tau2's tool marks
    def changes_what_it_iterates(self, user_id):
        next(iter(self.db.flights.values())).origin = "XXX"  # a shared record, reached by iterating
        return original(self, user_id)

    monkeypatch.setattr(AirlineTools, "get_user_details", changes_what_it_iterates)
    # verify's first calls of get_user_details are its reads over every record, before any task
    with pytest.raises(CheckFailed,
                       match=r"the read calls over every record: a tool changed a shared source db record"):
        verify("airline", PROJECT, ROOT / "data" / "domains" / "airline", rewards=False, tasks={"0", "1"}, jobs=jobs)


def test_verify_stops_when_a_task_changes_a_shared_record(monkeypatch):
    from tau2.domains.airline.tools import AirlineTools

    from jtau.errors import CheckFailed
    from jtau.runtime.verify import verify

    original = AirlineTools.search_direct_flight  # a golden call of task 9, not one of the reads

    @functools.wraps(original)  # keeps tau2's tool marks
    def changes_what_it_iterates(self, *args, **kwargs):
        next(iter(self.db.flights.values())).origin = "XXX"  # a shared record, reached by iterating
        return original(self, *args, **kwargs)

    monkeypatch.setattr(AirlineTools, "search_direct_flight", changes_what_it_iterates)
    with pytest.raises(CheckFailed, match=r"task 9: a tool changed a shared source db record in place"):
        verify("airline", PROJECT, ROOT / "data" / "domains" / "airline", rewards=False, tasks={"0", "9"}, reads=False)


# --- the environments of a run (runtime/registration.py): three a simulation, over one shared db ---

@pytest.mark.parametrize("name", ["airline_en", "airline_ja", "retail_ja-entities"])
def test_a_registered_arms_environments_share_one_db_and_hash_as_tau2(name):
    from tau2.registry import registry
    from tau2.utils.utils import get_dict_hash

    from jtau.runtime.registration import check_shared_records
    from jtau.runtime.tau2_entry import register

    register(PROJECT, registry)
    make = registry.get_env_constructor(name)
    first, second = make(), make(solo_mode=False)
    users_first, users_second = first.tools.db.users, second.tools.db.users
    user_id = next(iter(users_first))
    assert dict.__getitem__(users_first, user_id) is dict.__getitem__(users_second, user_id)  # one record, shared
    pristine = get_dict_hash(first.tools.db.model_dump())  # tau2's own hash
    assert first.get_db_hash() == second.get_db_hash() == pristine
    users_first[user_id].email = "changed@example.com"  # as tools change a record: after a key lookup
    assert first.get_db_hash() == get_dict_hash(first.tools.db.model_dump()) != pristine
    assert second.get_db_hash() == make().get_db_hash() == pristine
    check_shared_records(name)
    shared = next(iter(users_second.values()))  # reached by iterating: the shared record itself
    email = shared.email
    try:
        shared.email = "changed@example.com"
        with pytest.raises(CheckFailed, match=rf"^{name}: a tool changed in place a record of the database"):
            check_shared_records(name)
    finally:
        shared.email = email
    check_shared_records(name)
