"""Retail knowledge that is a formula rather than a path: the arithmetic identities of its
db (and that the catalog keeps every variant distinguishable), checked by `jtau validate`
on the source and on the localized db.

Each identity: function(db, rules, rate, file) -> (errors, number of records where it holds).
"""

from __future__ import annotations

from decimal import Decimal

from jtau.rules import DomainRules


def _amount(value) -> Decimal:
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def item_prices(db, rules: DomainRules, rate: Decimal, file: str) -> tuple[list[str], int]:
    """Every order item costs what its variant costs in the catalog."""
    errors, holds = [], 0
    for oid, order in db["orders"].items():
        for i, item in enumerate(order["items"]):
            product = db["products"].get(item["product_id"])
            if product is None:  # (the schema says nothing of references)
                errors.append(f"{file}: orders.{oid}.items[{i}]: product {item['product_id']!r} is not in the catalog")
                continue
            variant = product["variants"].get(item["item_id"])
            if variant is not None and _amount(variant["price"]) == _amount(item["price"]):
                holds += 1
            else:
                errors.append(f"{file}: orders.{oid}.items[{i}]: price {item['price']} is not the catalog price")
    return errors, holds


def order_payments(db, rules: DomainRules, rate: Decimal, file: str) -> tuple[list[str], int]:
    """Count of orders whose first payment equals the sum of their item prices.  Not an error
    when it fails (orders changed by exchanges differ in the source too): the localized count
    must equal the source count, which `jtau validate` compares."""
    holds = 0
    for order in db["orders"].values():
        payments = [p for p in order["payment_history"] if p["transaction_type"] == "payment"]
        total = sum((_amount(i["price"]) for i in order["items"]), Decimal(0))
        holds += bool(payments) and _amount(payments[0]["amount"]) == total
    return [], holds


def distinct_variants(db, rules: DomainRules, rate: Decimal, file: str) -> tuple[list[str], int]:
    """Within a product, no two variants have the same options, and no options object has two
    keys for one name: the agent tells variants apart by their options."""
    errors, holds = [], 0
    for pid, product in db["products"].items():
        seen: dict[tuple, str] = {}
        for vid, variant in product["variants"].items():
            options = tuple(sorted(variant["options"].items()))
            if options in seen:
                errors.append(f"{file}: products.{pid}.variants.{vid}: same options as {seen[options]} "
                              f"({dict(options)}); entity_maps/catalog.yaml must keep them apart")
            else:
                seen[options] = vid
                holds += 1
    return errors, holds


IDENTITIES = {"order item price = catalog price": item_prices,
              "order payment = item prices": order_payments,
              "variants distinguishable": distinct_variants}
