"""A customer's hometown is where the db says they live, in every arm.

Where a task's text says where its customer lives ("a 33-year-old marketing manager from Portland,
OR", "You live in Nashville, TN") and the source's address of that customer agrees (the city is in
it), the arm must say it too: the place as the arm renders it (the pipeline's recognizer and
renderer: 長崎県長崎市 where the entities are J-tau's, "Portland, OR" where they are the source's) is
in the arm's text of that task and its city in the arm's address of that customer.  This is the
contradiction the locale check cannot see: a hometown of the right locale that is not the db's.

The rules say where the customers are (`customers`: the db's records by id, the address and name
fields); a task concerns the customers whose id is one of its values or whose name its text says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jtau.rules import Customers
from jtau.text.recognize import Recognizer
from jtau.text.render import Renderer
from jtau.util.jsonpath import format_path
from jtau.validate.finding import Finding

# "from Portland, OR", "living in Denver, Colorado", "based in Boulder, CO"
HOMETOWN = re.compile(r"\b(?:from|living in|based in|live in|lives in)\s+"
                      r"((?:[A-Z][a-z]+ ?){1,3}, (?:[A-Z]{2}\b|[A-Z][a-z]+(?: [A-Z][a-z]+)?))")


@dataclass(frozen=True)
class Hometown:
    task: int
    field: tuple      # the JSON path of the text in the task
    place: str        # as the source says it
    customers: tuple  # positions of the task's customers among the db's


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _flat(value) -> str:
    return " ".join(_strings(value))


def _pieces(place: str) -> list[str]:
    """What an address must hold to be at `place`: its city ("Portland" of "Portland, OR"); a
    Japanese place's prefecture and city, each (大阪府大阪市: the db may order them otherwise)."""
    if place.isascii():
        return [place.split(",")[0]]
    return [piece for piece in re.split(r"(?<=[都道府県])", place) if piece]


def records(db: dict, customers: Customers) -> list[dict]:
    """The db's customer records, in the db's order (the same in every arm)."""
    table = db
    for key in customers.records.split("."):
        table = table[key]
    return list(table.values()) if isinstance(table, dict) else list(table)


def source_hometowns(tasks: list[dict], db: dict, customers: Customers,
                     fields: list[tuple[tuple, str]]) -> list[Hometown]:
    """Every hometown a source task says (`fields`: each task text's JSON path, from the task's
    index, and the text) that the source's address of its customer confirms."""
    people = records(db, customers)
    ids = [str(record.get(customers.id)) for record in people]
    names = [_flat(record.get(customers.name)) for record in people]
    addresses = [_flat(record.get(customers.address)) for record in people]
    found = []
    for path, text in fields:
        places = [match[1] for match in HOMETOWN.finditer(text)]
        if not places:  # (most texts: who the task concerns is not asked)
            continue
        index = path[0]
        values = list(_strings(tasks[index]))
        blob = "\n".join(values)
        concerned = tuple(i for i in range(len(people)) if ids[i] in values or names[i] in blob)
        for place in places:
            city = place.split(",")[0]
            if concerned and any(city in addresses[i] for i in concerned):
                found.append(Hometown(index, path, place, concerned))
    return found


def check(hometowns: list[Hometown], arm_tasks: list[dict], arm_db: dict, customers: Customers,
          recognizer: Recognizer, renderer: Renderer, label: str) -> list[Finding]:
    """The arm's text and address of each confirmed hometown: errors naming the task and both."""
    people = records(arm_db, customers)
    errors: list[Finding] = []
    for home in hometowns:
        template = recognizer.templatize(home.place)  # each entity of the place as the arm writes it
        parts = [renderer.entity(entity) for _, entity in template.entities] or [home.place]
        if renderer.arm.localizes_entities and re.search(r"[A-Za-z]", renderer.render(template.text, template)):
            errors.append(Finding("hometowns", f"the source's hometown {home.place!r} is only part J-tau's: "
                                  f"{renderer.render(template.text, template)!r} (a place of the maps for all of it)",
                                  label, format_path(home.field)))
            continue
        text = arm_tasks[home.task]
        for key in home.field[1:]:
            text = text[key]
        addresses = [_flat(people[i].get(customers.address)) for i in home.customers]
        if missing := [part for part in parts if part not in text]:
            errors.append(Finding("hometowns", f"the source's hometown {home.place!r} reads {' '.join(parts)!r} in "
                                  f"this arm; the text does not say {missing[0]!r}", label, format_path(home.field)))
        elif not any(all(piece in address for piece in _pieces(parts[0])) for address in addresses):
            errors.append(Finding("hometowns", f"the hometown {parts[0]!r} is not the customer's address "
                                  f"{addresses[0]!r}", label, format_path(home.field)))
    return errors
