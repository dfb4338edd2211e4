"""Stage 2: the entity maps, reviewed YAML under `entity_maps/` that say what each source
entity becomes in Japanese.  `load_maps` reads and checks them (`project_maps`: the project's);
entries for entities the maps do not cover yet are proposed by jtau.map_proposals (never used at
localization time).

- model.py: the maps as typed data (people, places, addresses, locale, catalog, banking), checked one to one
"""

from jtau.maps.model import EntityMaps, load_maps, project_maps

__all__ = ["EntityMaps", "load_maps", "project_maps"]
