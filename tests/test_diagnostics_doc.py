"""Every diagnostic code the code base can raise is documented in docs/diagnostics.md."""

from __future__ import annotations

import re

from tests.conftest import ROOT

CODE = re.compile(r"TP[0-9]{3}")


def _used_codes() -> set:
    codes = set()
    for path in (ROOT / "porter").rglob("*.py"):
        codes |= set(CODE.findall(path.read_text(encoding="utf-8")))
    return codes


RETIRED = "No longer raised"


def _documented() -> dict:
    """code -> (meaning, what to do) from the tables' rows `| TPnnn | meaning | what to do |`."""
    rows = {}
    for line in (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and CODE.fullmatch(cells[0]):
            rows[cells[0]] = (cells[1], cells[2])
    return rows


def test_every_code_used_in_porter_is_documented():
    used, documented = _used_codes(), _documented()
    assert used, "no codes found: did the layout change?"
    missing = sorted(used - set(documented))
    assert not missing, f"document these codes in docs/diagnostics.md: {missing}"


def test_each_documented_code_says_what_it_means_and_what_to_do():
    for code, (meaning, action) in _documented().items():
        assert len(meaning) > 10 and len(action) > 5, code


def test_every_documented_code_is_raised_or_marked_retired():
    used = _used_codes()
    stale = sorted(code for code, (meaning, _) in _documented().items()
                   if code not in used and not meaning.startswith(RETIRED))
    assert not stale, f"documented but never raised (mark them '{RETIRED}: ...'): {stale}"
    retired_but_raised = sorted(code for code, (meaning, _) in _documented().items()
                                if code in used and meaning.startswith(RETIRED))
    assert not retired_but_raised, retired_but_raised
