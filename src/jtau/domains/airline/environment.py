"""The `airline_ja` environment: tau2's airline tools with their locale facts localized.

tau2's airline tools hard-code dollars: 30 per insured passenger and 50 per non-free bag in
`book_reservation` and `update_reservation_baggages`, cent rounding in `calculate`, the US
airport list of `list_all_airports`, English descriptions.  `JTauAirlineTools` overrides
exactly those, with the constants of the domain rules times the exchange rate and the
airports of the maps; every other behaviour is tau2's own.  `jtau verify airline` proves the
overlay right: the golden actions give the same outcomes and the localized final database.

Another arm (jtau.arms) takes what it localizes: `ja-entities` the fees, rounding and airports
with tau2's English descriptions and errors, `ja-text` the Japanese descriptions with tau2's
dollar code (`airline_arm`).
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from copy import deepcopy
from pathlib import Path
from typing import Any

from pydantic import Field, create_model
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

from jtau.arms import ARMS, JTAU_ARM, Arm
from jtau.maps import EntityMaps
from jtau.rules import DomainRules
from jtau.runtime.overlay import (
    JaDomain,
    JaEnvironment,
    arm_descriptions,
    environment_class,
    overlay_class,
    whole_yen_calculate,
)

DOMAIN = "airline_ja"


def described_models(models: dict[str, dict[str, str]]) -> dict[type, type]:
    """tau2 argument models -> subclasses with Japanese field descriptions (for schemas only:
    the tools receive plain dicts and build tau2's own models from them)."""
    out = {}
    for model in (FlightInfo, Passenger, Payment):
        fields = models.get(model.__name__, {})
        overrides: dict[str, Any] = {name: (info.annotation, Field(description=fields[name]))
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
    return origin[swapped] if origin is not list else types.GenericAlias(list, (swapped[0],))


def localized_signature(func, table: dict[type, type]) -> inspect.Signature:
    sig = inspect.signature(func)
    return sig.replace(parameters=[p.replace(annotation=swap_types(p.annotation, table))
                                   for p in sig.parameters.values()])


def tools_class(maps: EntityMaps, rules: DomainRules, arm: Arm | None = None) -> type[AirlineTools]:
    """tau2's AirlineTools with the overlay for these maps and rules, for an arm (default `ja`)."""
    arm = arm or ARMS[JTAU_ARM]
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

    def list_all_airports(self):
        return list(airports)

    overrides: dict[str, Callable[..., Any]] = {}
    if arm.localizes_entities:
        overrides = {f.__name__: f for f in (book_reservation, update_reservation_baggages, list_all_airports)}
        overrides["calculate"] = whole_yen_calculate
    texts, document = arm_descriptions("airline", arm, maps)
    described = texts.get("models", {})
    if document:  # English argument models in J-tau's notation ("Payment amount in yen")
        described = {model.__name__: {name: document(info.description) for name, info in model.model_fields.items()
                                      if info.description and document(info.description) != info.description}
                     for model in (FlightInfo, Passenger, Payment)}
    if not any(described.values()):
        return overlay_class(AirlineTools, "JTauAirlineTools", overrides, texts, document=document)
    models = described_models(described)
    return overlay_class(AirlineTools, "JTauAirlineTools", overrides, texts, document=document,
                         signature=lambda original: localized_signature(original, models))


def airline_arm(folder: Path, maps: EntityMaps, rules: DomainRules, arm: Arm) -> JaDomain:
    """An arm of J-tau airline for tau2's registry (`airline_<arm>`; `en` is runtime/registration.py's)."""
    return JaDomain(f"airline_{arm.name}", folder, tools_class(maps, rules, arm), FlightDB,
                    environment_class(JaEnvironment, arm, maps))


def airline_ja(folder: Path, maps: EntityMaps, rules: DomainRules) -> JaDomain:
    """The J-tau airline domain for tau2's registry."""
    return airline_arm(folder, maps, rules, ARMS[JTAU_ARM])
