"""A wheel (PEP 427) written byte for byte from a list of files: jtau's release format.

Why not the build backend: setuptools' wheel holds what its package-data and MANIFEST rules
find, stamps each entry with the files' times (or SOURCE_DATE_EPOCH), and takes J-tau's data
only from inside the package folder, so the data would have to be copied into `src/` first.
Here the wheel holds exactly the files `jtau release` chooses, named in sorted order, each
with the same timestamp (1980-01-01, the earliest a zip can hold), mode 0644 and one
compression level: the same inputs give the same bytes (tests/release/test_release.py builds twice).

    <package files> ... <name>-<version>.dist-info/{METADATA,WHEEL,entry_points.txt,licenses/*,RECORD}

METADATA (core metadata 2.4) comes from pyproject.toml's [project] table, the long description
from its readme; RECORD lists every file with its sha256 (urlsafe base64, unpadded) and size.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import zipfile
from collections.abc import Mapping

EPOCH = (1980, 1, 1, 0, 0, 0)
FILE_MODE = 0o100644  # a regular file, rw-r--r--
LEVEL = 9
TAG = "py3-none-any"


def wheel_name(name: str, version: str) -> str:
    return f"{_normalized(name)}-{version}-{TAG}.whl"


def build_wheel(project: Mapping, files: Mapping[str, bytes], readme: str = "",
                licenses: Mapping[str, bytes] | None = None) -> tuple[str, bytes]:
    """The wheel of `project` ([project] of pyproject.toml) holding `files` (path in the wheel ->
    bytes), its `readme` as description and `licenses` (file name -> bytes); (file name, bytes)."""
    name, version = project["name"], project["version"]
    dist_info = f"{_normalized(name)}-{version}.dist-info"
    licenses = dict(licenses or {})
    content = {path: files[path] for path in sorted(files)}
    content[f"{dist_info}/METADATA"] = metadata(project, readme, sorted(licenses)).encode("utf-8")
    content[f"{dist_info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: jtau release\nRoot-Is-Purelib: true\n"
                                     f"Tag: {TAG}\n").encode()
    scripts = project.get("scripts") or {}
    if scripts:
        content[f"{dist_info}/entry_points.txt"] = ("[console_scripts]\n" + "".join(
            f"{script} = {target}\n" for script, target in sorted(scripts.items())) + "\n").encode()
    for license_name in sorted(licenses):
        content[f"{dist_info}/licenses/{license_name}"] = licenses[license_name]
    record = f"{dist_info}/RECORD"
    content[record] = "".join(f"{path},sha256={_digest(data)},{len(data)}\n" for path, data in content.items()
                              ).encode() + f"{record},,\n".encode()
    return wheel_name(name, version), zipped(content)


def zipped(files: Mapping[str, bytes]) -> bytes:
    """A zip of `files` in the given order, with nothing in it that depends on when or where."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # unix: the mode below is read
            info.external_attr = FILE_MODE << 16
            archive.writestr(info, data, compresslevel=LEVEL)
    return buffer.getvalue()


def metadata(project: Mapping, readme: str, license_files: list[str]) -> str:
    """Core metadata 2.4 of the [project] table: name, version, summary, licence, Python,
    dependencies and extras, and the readme as a Markdown description."""
    lines = ["Metadata-Version: 2.4", f"Name: {project['name']}", f"Version: {project['version']}"]
    if project.get("description"):
        lines.append(f"Summary: {project['description']}")
    license_ = project.get("license")
    if isinstance(license_, str):
        lines.append(f"License-Expression: {license_}")
    lines += [f"License-File: {name}" for name in license_files]
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {requirement}" for requirement in project.get("dependencies") or []]
    for extra, requirements in (project.get("optional-dependencies") or {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for requirement in requirements:
            lines.append(f"Requires-Dist: {_with_extra(requirement, extra)}")
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        return "\n".join(lines) + "\n\n" + readme
    return "\n".join(lines) + "\n"


def _with_extra(requirement: str, extra: str) -> str:
    spec, _, marker = requirement.partition(";")
    condition = f'extra == "{extra}"'
    return f"{spec.strip()}; ({marker.strip()}) and {condition}" if marker.strip() else f"{spec.strip()}; {condition}"


def _normalized(name: str) -> str:
    """The distribution name as wheel file names spell it (PEP 427, PEP 503)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
