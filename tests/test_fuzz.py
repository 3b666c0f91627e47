"""A fixed, seeded slice of the fuzz campaign (tests/fuzz): no case may end in a traceback, a
hang, a signal, an uncoded failure, a changed input, a leftover process or temp file, or a
peak over 2 GiB. The full campaign: `python -m tests.fuzz.campaign` (see docs/hostile-input.md)."""

from __future__ import annotations

from tests.fuzz.campaign import run_case
from tests.fuzz.generate import KINDS, cases

SEED = 2026
#: Inside the suite, verify runs cold: test_warm_worker starts, kills and shuts down warm
#: workers alongside (xdist), and a case's own worker has been seen leaving its lock file
#: then. The full campaign runs with the warm worker, as users do.
COLD = {"TILEPORT_WARM": "0"}


def _slice() -> list:
    """Two cases of each kind (one for verify's slow runtime cases), always the same ones."""
    chosen, drawn = [], cases(SEED, 400)
    for kind in KINDS:
        chosen += [c for c in drawn if c.kind == kind][: 1 if kind == "runtime" else 2]
    return chosen


def test_the_seeded_slice_covers_every_kind():
    assert {c.kind for c in _slice()} == set(KINDS)


def test_no_seeded_case_breaks_a_promise(tmp_path):
    failed = [(r["case"], r["problems"], r["note"], r["leftover"], r["tail"][-300:]) for r in
              (run_case(c, tmp_path, extra_env=COLD) for c in _slice()) if r["problems"]]
    assert not failed, failed


def test_the_generator_is_deterministic():
    first, again = cases(SEED, 50), cases(SEED, 50)
    assert [(c.kind, c.argv, c.files) for c in first] == [(c.kind, c.argv, c.files) for c in again]
