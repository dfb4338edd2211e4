"""The `airline_ja` environment: tau2's airline tools with their locale facts localized.

tau2's airline tools hard-code dollars: 30 per insured passenger and 50 per non-free bag in
`book_reservation` and `update_reservation_baggages`, cent rounding in `calculate`, the US
airport list of `list_all_airports`, English descriptions.  `JTauAirlineTools` overrides
exactly those, with the constants of the domain rules times the exchange rate and the
airports of the maps; every other behaviour is tau2's own.  `jtau verify airline` proves the
overlay right: the golden actions give the same outcomes and the localized final database.
"""

from __future__ import annotations

import functools
import inspect
import json
import types
import typing
from copy import deepcopy
from decimal import Decimal
from importlib import resources
from pathlib import Path

import yaml
from pydantic import Field, create_model
from tau2.data_model.tasks import Task
from tau2.domains.airline.data_model import (
    AirportCode,
    FlightDateStatusAvailable,
    FlightDB,
    FlightInfo,
    Passenger,
    Payment,
    Reservation,
    ReservationFlight,
)
from tau2.domains.airline.tools import AirlineTools
from tau2.environment.environment import Environment
from tau2.environment.toolkit import TOOL_ATTR, TOOL_TYPE_ATTR

from jtau.maps import EntityMaps
from jtau.rules import DomainRules

DOMAIN = "airline_ja"


def docstring(spec: dict) -> str:
    """A Google-style docstring (what tau2 parses into the tool schema) from the YAML entry."""
    parts = [spec["summary"]]
    if spec.get("args"):
        parts.append("Args:\n" + "\n".join(f"    {name}: {text}" for name, text in spec["args"].items()))
    if spec.get("returns"):
        parts.append(f"Returns:\n    {spec['returns']}")
    if spec.get("raises"):
        parts.append("Raises:\n" + "\n".join(f"    ValueError: {text}" for text in spec["raises"]))
    return "\n\n".join(parts)


def descriptions() -> dict:
    path = resources.files(__package__) / "airline_tools.ja.yaml"
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def described_models(models: dict[str, dict[str, str]]) -> dict[type, type]:
    """tau2 argument models -> subclasses with Japanese field descriptions (for schemas only:
    the tools receive plain dicts and build tau2's own models from them)."""
    out = {}
    for model in (FlightInfo, Passenger, Payment):
        fields = models.get(model.__name__, {})
        overrides = {name: (info.annotation, Field(description=fields[name]))
                     for name, info in model.model_fields.items() if name in fields}
        out[model] = create_model(model.__name__, __base__=model, **overrides)
    return out


def swap_types(annotation, table: dict[type, type]):
    """`List[FlightInfo | dict]` -> `List[FlightInfoJa | dict]`, recursively."""
    if annotation in table:
        return table[annotation]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is None or not args:
        return annotation
    swapped = tuple(swap_types(a, table) for a in args)
    if origin in (typing.Union, types.UnionType):
        return typing.Union[swapped]
    return origin[swapped] if origin is not list else list[swapped[0]]


def localized_signature(func, table: dict[type, type]) -> inspect.Signature:
    sig = inspect.signature(func)
    return sig.replace(parameters=[p.replace(annotation=swap_types(p.annotation, table))
                                   for p in sig.parameters.values()])


def tools_class(maps: EntityMaps, rules: DomainRules) -> type[AirlineTools]:
    """tau2's AirlineTools with the overlay for these maps and rules."""
    rate = maps.locale.currency.rate
    insurance_fee = int(rules.tool_constants["insurance_per_passenger"] * rate)
    bag_fee = int(rules.tool_constants["nonfree_bag"] * rate)
    airports = [AirportCode(iata=a.code, city=maps.places.cities[a.city].name)
                for a in maps.places.airports.values()]

    def book_reservation(self, user_id, origin, destination, flight_type, cabin, flights, passengers,
                         payment_methods, total_baggages, nonfree_baggages, insurance):
        flights = [FlightInfo(**f) if isinstance(f, dict) else f for f in flights]
        passengers = [Passenger(**p) if isinstance(p, dict) else p for p in passengers]
        payment_methods = [Payment(**p) if isinstance(p, dict) else p for p in payment_methods]
        user = self._get_user(user_id)
        reservation = Reservation(
            reservation_id=self._get_new_reservation_id(), user_id=user_id, origin=origin,
            destination=destination, flight_type=flight_type, cabin=cabin, flights=[],
            passengers=deepcopy(passengers), payment_history=deepcopy(payment_methods),
            created_at=self._get_datetime(), total_baggages=total_baggages,
            nonfree_baggages=nonfree_baggages, insurance=insurance)
        total_price, booked = 0, []
        for info in flights:
            flight = self._get_flight(info.flight_number)
            instance = self._get_flight_instance(flight_number=info.flight_number, date=info.date)
            if not isinstance(instance, FlightDateStatusAvailable):
                raise ValueError(f"Flight {info.flight_number} not available on date {info.date}")
            if instance.available_seats[cabin] < len(passengers):
                raise ValueError(f"Not enough seats on flight {info.flight_number}")
            price = instance.prices[cabin]
            reservation.flights.append(ReservationFlight(
                origin=flight.origin, destination=flight.destination,
                flight_number=info.flight_number, date=info.date, price=price))
            booked.append(instance)
            total_price += price * len(passengers)
        if insurance == "yes":
            total_price += insurance_fee * len(passengers)
        total_price += bag_fee * nonfree_baggages
        for payment in payment_methods:
            if payment.payment_id not in user.payment_methods:
                raise ValueError(f"Payment method {payment.payment_id} not found")
            method = user.payment_methods[payment.payment_id]
            if method.source in {"gift_card", "certificate"} and method.amount < payment.amount:
                raise ValueError(f"Not enough balance in payment method {payment.payment_id}")
        paid = sum(payment.amount for payment in payment_methods)
        if paid != total_price:
            raise ValueError(f"Payment amount does not add up, total price is {total_price}, but paid {paid}")
        for payment in payment_methods:
            method = user.payment_methods[payment.payment_id]
            if method.source == "gift_card":
                method.amount -= payment.amount
            elif method.source == "certificate":
                user.payment_methods.pop(payment.payment_id)
        for instance in booked:
            instance.available_seats[cabin] -= len(passengers)
        self.db.reservations[reservation.reservation_id] = reservation
        self.db.users[user_id].reservations.append(reservation.reservation_id)
        return reservation

    def update_reservation_baggages(self, reservation_id, total_baggages, nonfree_baggages, payment_id):
        reservation = self._get_reservation(reservation_id)
        user = self._get_user(reservation.user_id)
        total_price = bag_fee * max(0, nonfree_baggages - reservation.nonfree_baggages)
        payment = self._payment_for_update(user, payment_id, total_price)
        if payment is not None:
            reservation.payment_history.append(payment)
        reservation.total_baggages = total_baggages
        reservation.nonfree_baggages = nonfree_baggages
        return reservation

    def calculate(self, expression):
        if not all(char in "0123456789+-*/(). " for char in expression):
            raise ValueError("Invalid characters in expression")
        value = Decimal(repr(float(eval(expression, {"__builtins__": None}, {}))))
        return str(int(value.to_integral_value()))  # yen have no minor unit

    def list_all_airports(self):
        return list(airports)

    overrides = {f.__name__: f for f in (book_reservation, update_reservation_baggages, calculate,
                                         list_all_airports)}
    texts = descriptions()
    tools, models = texts["tools"], described_models(texts.get("models", {}))
    attrs = {}
    for name in AirlineTools(None)._func_tools:
        original = getattr(AirlineTools, name)
        if name in overrides:
            tool = overrides[name]
        else:
            def tool(self, *args, __original=original, **kwargs):
                return __original(self, *args, **kwargs)
        functools.update_wrapper(tool, original, assigned=("__module__", "__name__", "__qualname__"))
        tool.__signature__ = localized_signature(original, models)
        tool.__doc__ = docstring(tools[name]) if name in tools else original.__doc__
        setattr(tool, TOOL_ATTR, True)
        setattr(tool, TOOL_TYPE_ATTR, getattr(original, TOOL_TYPE_ATTR))
        attrs[name] = tool
    return type("JTauAirlineTools", (AirlineTools,), attrs)


class AirlineJa:
    """The J-tau airline domain as tau2 wants it: an environment constructor and tasks."""

    def __init__(self, folder: Path, maps: EntityMaps, rules: DomainRules):
        self.folder, self.tools = folder, tools_class(maps, rules)

    def get_environment(self, db: FlightDB | None = None, solo_mode: bool = False) -> Environment:
        if solo_mode:
            raise ValueError("Airline domain does not support solo mode")
        if db is None:
            db = FlightDB.load(str(self.folder / "db.json"))
        policy = (self.folder / "policy.md").read_text(encoding="utf-8")
        return Environment(domain_name=DOMAIN, policy=policy, tools=self.tools(db))

    def get_tasks(self, task_split_name: str | None = "base") -> list[Task]:
        tasks = [Task.model_validate(t) for t in json.loads((self.folder / "tasks.json").read_text("utf-8"))]
        if task_split_name is None:
            return tasks
        splits = self.get_tasks_split()
        if task_split_name not in splits:
            raise ValueError(f"Invalid task split name: {task_split_name}; valid: {', '.join(splits)}")
        return [t for t in tasks if t.id in splits[task_split_name]]

    def get_tasks_split(self) -> dict[str, list[str]]:
        return json.loads((self.folder / "split_tasks.json").read_text("utf-8"))
