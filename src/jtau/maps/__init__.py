"""Stage 2: the entity maps, reviewed YAML under `entity_maps/` that say what each source
entity becomes in Japanese.  `load_maps` reads and checks them; `propose` suggests entries
for entities the maps do not cover yet (never used at localization time)."""

from jtau.maps.model import EntityMaps, load_maps

__all__ = ["EntityMaps", "load_maps"]
