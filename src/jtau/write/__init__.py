"""Stage 6: output.  Stable JSON (DESIGN.md section 6), atomic writes, the manifest, and
`--check`, which compares what would be written with what is on disk."""

from jtau.write.files import atomic_write, check_files, create_once, dump_json, ensure_writable, replace_folder
from jtau.write.manifest import manifest

__all__ = ["atomic_write", "check_files", "create_once", "dump_json", "ensure_writable", "manifest", "replace_folder"]
