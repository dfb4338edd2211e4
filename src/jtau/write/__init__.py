"""Stage 6: output.  The manifest, and `--check`, which compares what would be written with what
is on disk (the files themselves are written by jtau.util.files: stable JSON, atomic writes).

- manifest.py: the manifest of an output folder: what produced it, without timestamps
- check.py: `--check`: what would be written compared with what is on disk
"""

from jtau.write.check import check_files
from jtau.write.manifest import manifest

__all__ = ["check_files", "manifest"]
