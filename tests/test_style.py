"""What a reader finds without running anything: each package's docstring lists its modules, and
no code or document sends the reader to an issue number they cannot follow."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ISSUE = re.compile(r"\bissues? ?#?\d+\b", re.IGNORECASE)
UPSTREAM = re.compile(r"upstream issue #\d+", re.IGNORECASE)  # tau2-bench's public tracker


def undocumented(package: Path) -> list[str]:
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    names = [p.name for p in package.glob("*.py") if p.name != "__init__.py"]
    names += [d.name + "/" for d in package.iterdir() if (d / "__init__.py").exists()]
    return sorted(name for name in names if name not in doc)


def test_every_package_docstring_lists_its_modules():
    missing = {str(init.parent.relative_to(ROOT)): undocumented(init.parent)
               for init in (ROOT / "src" / "jtau").rglob("__init__.py")}
    assert {package: names for package, names in missing.items() if names} == {}


def test_a_module_the_docstring_forgets_is_found(tmp_path):
    (tmp_path / "__init__.py").write_text('"""- kept.py: kept"""\n')
    (tmp_path / "kept.py").write_text("")
    (tmp_path / "forgotten.py").write_text("")
    assert undocumented(tmp_path) == ["forgotten.py"]


def test_no_issue_numbers_in_code_or_docs():
    files = [*(ROOT / "src").rglob("*.py"), *(ROOT / "src").rglob("*.yaml"), *(ROOT / "tests").rglob("*.py"),
             *(ROOT / "scripts").rglob("*.py"), *(ROOT / "docs").rglob("*.md"), ROOT / "README.md",
             ROOT / ".ci" / "run", *(ROOT / ".github").rglob("*.yml")]
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for path in files for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if ISSUE.search(UPSTREAM.sub("", line)) and path.name != "test_style.py"]
    assert found == []
