"""JSON Schemas of tau2's data model, shipped in `jtau/schemas/` (see
scripts/export_schemas.py), so that validation needs no tau2 install."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from jsonschema import Draft202012Validator

from jtau.jsonpath import format_path

MAX_ERRORS = 20


@cache
def validator(name: str) -> Draft202012Validator:
    schema = json.loads((resources.files("jtau") / "schemas" / name).read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


def check_schema(data, schema_name: str, file: str, item_schema: bool = False) -> list[str]:
    """Errors of `data` against a schema; with `item_schema`, `data` is a list of items."""
    check = validator(schema_name)
    items = enumerate(data) if item_schema else [(None, data)]
    errors: list[str] = []
    for index, item in items:
        for error in check.iter_errors(item):
            path = ((index,) if index is not None else ()) + tuple(error.absolute_path)
            errors.append(f"{file}: {format_path(path)}: schema: {error.message[:200]}")
            if len(errors) >= MAX_ERRORS:
                return errors
    return errors
