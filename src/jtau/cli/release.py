"""`jtau release`: the wheel and the dataset of a J-tau release, built from the checkout."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from jtau.cli.common import app, done, fail, out_console
from jtau.errors import JtauError


@app.command()
def release(
    out: Annotated[Path, typer.Option("--out", "-o", help="The release folder (created, or an earlier release "
                                                          "replaced whole).")],
) -> None:
    """Build a versioned J-tau release from the checkout: the wheel (jtau with J-tau inside), each
    domain's data with a dataset card, release.json and SHA256SUMS; the same bytes for the same commit."""
    from jtau.project import Project
    from jtau.release.build import release_files, write_release

    try:
        files = release_files(Project.find())
        write_release(out, files)
        wheel = next(name for name in files if name.endswith(".whl"))
        data = sum(len(d) for name, d in files.items() if name.startswith("data/"))
        out_console.print(f"{out}: {len(files)} files; {wheel} {len(files[wheel]) / 1e6:.1f} MB; "
                          f"data {data / 1e6:.1f} MB in {sum(n.startswith('data/') for n in files)} files")
        done(f"release {out} written (sha256sum -c SHA256SUMS checks it)", f"pip install {out / wheel}")
    except JtauError as exc:
        fail(exc)
