"""What `pip install .` (not editable) ships: every porter package is listed in pyproject.toml."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def test_every_porter_package_is_installed():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^packages = \[(.*?)\]", text, re.DOTALL | re.MULTILINE).group(1)  # tomllib is 3.11+
    listed = set(re.findall(r'"([\w.]+)"', block))
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "porter").rglob("__init__.py")}
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"
