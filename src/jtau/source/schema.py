"""JSON Schemas of tau2's data model, shipped in each domain's folder (jtau/domains/; see
scripts/regenerate/export_schemas.py), so that validation needs no tau2 install.

Validated with jsonschema-rs: the airline db (7 MB) takes 5 ms there, 1.3 s with the
pure-Python jsonschema package."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema_rs

from jtau.util.jsonpath import format_path
from jtau.util.listing import clip

MAX_ERRORS = 20


@cache
def validator(path: Path):
    schema = json.loads(path.read_text(encoding="utf-8"))
    return jsonschema_rs.validator_for(schema)


def check_schema(data, schema: Path, file: str, item_schema: bool = False) -> list[str]:
    """Errors of `data` against a schema file; with `item_schema`, `data` is a list of items."""
    check = validator(schema)
    items = enumerate(data) if item_schema else [(None, data)]
    errors: list[str] = []
    for index, item in items:
        for error in check.iter_errors(item):
            path = ((index,) if index is not None else ()) + tuple(error.instance_path)
            errors.append(f"{file}: {format_path(path)}: schema: {clip(error.message, 200)}")
            if len(errors) >= MAX_ERRORS:
                return errors + [f"{file}: schema: checking stopped after {MAX_ERRORS} errors"]
    return errors
