"""A verdict people can trust: wrong ports fail (loops that never leave their first chunk, reads
of tiles never written, writes past a buffer, rounding that differs by target), and a mismatch
says where it is. The mutants here are the kinds bench/mutation.py makes, written by hand."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from bench.mutation import KINDS, all_mutants, kernel_bodies, select
from porter.reader import read_source
from porter.verify.driver import VerifyOptions, verify, whole_tile_notes
from porter.verify.inputs import buffer_lengths, loop_quanta, problem_sizes, size_params, stride_params
from tests.conftest import one_line

ROOT = Path(__file__).resolve().parents[1]
SOFTMAX = ROOT / "samples" / "cuda" / "softmax_row.cu"
ROUND = ROOT / "tests" / "real_cuda" / "round_ties.cu"


@pytest.fixture(scope="module")
def softmax_port(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("softmax") / "softmax_row_tl.py"
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(SOFTMAX), "-o", str(out)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return out


def _mutant(tmp_path, port: Path, old: str, new: str) -> Path:
    text = one_line(port.read_text())
    assert text.count(old) >= 1, old
    path = tmp_path / port.name.replace("_tl", "_mutant_tl")
    path.write_text(text.replace(old, new, 1))
    return path


def _verify(original: Path, port: Path):
    return verify(str(original), str(port), VerifyOptions(compile_check=False, timeout=120)).kernels[0]


def test_mutants_change_one_token_of_the_kernel_bodies_only(softmax_port):
    text = softmax_port.read_text()
    mutants = all_mutants(text)
    assert {m.kind for m in mutants} == set(KINDS)
    wrapper = text[text.index("\ndef _softmax_row("):]
    for m in mutants:
        ast.parse(m.text)  # every mutant is a module
        assert m.text != text and m.text.endswith(wrapper)  # the wrapper is never touched
    bodies = kernel_bodies(ast.parse(text))
    assert len(bodies) == 1
    chosen = select(mutants, 2)
    assert len(chosen) <= 2 * len(KINDS) and {m.kind for m in chosen} == set(KINDS)


def test_problem_sizes_leave_every_chunk_and_hit_an_exact_multiple():
    kernel = read_source(str(SOFTMAX)).kernels[0]
    assert loop_quanta(kernel) == {"cols": 256}  # `c += blockDim.x` with 256 threads
    cols = [p["cols"] for p in problem_sizes(kernel, {})]
    assert cols[0] < 256 and cols[1] > 2 * 256  # a ragged row, then one past two chunks
    assert 512 in cols and 513 in cols  # the unmasked path, and one element above it
    relu = read_source(str(ROOT / "samples" / "cuda" / "relu_grid_stride.cu")).kernels[0]
    assert max(p["n"] for p in problem_sizes(relu, {})) > 2 * 32 * 128  # two grid-stride rounds


def test_a_chunk_stride_mutant_is_caught_and_located(tmp_path, softmax_port):
    # the survivor: `ck * 256 + j` -> `ck * 257 + j` (here in the exp-sum step's mask,
    # which reads the column `c = ck * 256 + j`) changes nothing while rows are shorter than
    # one chunk
    bad = _mutant(tmp_path, softmax_port, "c < cols, T.exp(", "ck * 257 + j < cols, T.exp(")
    result = _verify(SOFTMAX, bad)
    assert result.verdict == "mismatch"
    short = [c for c in result.cases if c.sizes["cols"] < 256 and not c.wide]
    assert short and all(c.ok for c in short)  # one chunk: this case alone could not tell


def test_a_mask_bug_is_reported_as_the_tail_with_coordinates(tmp_path, softmax_port):
    bad = _mutant(tmp_path, softmax_port, "if c < cols:", "if c < cols - 1:")
    result = _verify(SOFTMAX, bad)
    assert result.verdict == "mismatch"
    out = [b for c in result.cases for b in c.buffers if b.name == "out" and not b.ok]
    assert out and all(b.where["where"] == "tail" for b in out)
    case = next(c for c in result.cases if any(b.name == "out" and not b.ok for b in c.buffers))
    worst = next(b for b in case.buffers if b.name == "out").where["worst"][0]
    assert len(worst["at"]) == 2 and worst["at"][1] == case.sizes["cols"] - 1  # [row, last column]
    assert worst["expected"] != worst["actual"]
    spread = _verify(SOFTMAX, _mutant(tmp_path, softmax_port, "inv_sum = T.float32(1.0) / row_sum_1",
                                      "inv_sum = T.float32(1.01) / row_sum_1"))
    assert any(b.where and b.where["where"] == "spread" for c in spread.cases for b in c.buffers)


_CLEAR = "                T.clear(row_sum_1_chunk)"


def _clear_lanes(lanes: int) -> str:
    """The port's T.clear of the 256-lane chunk written out, over `lanes` lanes instead."""
    return (f"                for j in T.Parallel({lanes}):\n"
            "                    row_sum_1_chunk[j] = T.float32(0.0)")


def test_a_tile_read_before_it_is_written_is_caught(tmp_path, softmax_port):
    # on a GPU the last lane of the chunk would hold garbage: on the CPU it holds poison, not 0
    bad = _mutant(tmp_path, softmax_port, _CLEAR, _clear_lanes(255))
    assert _verify(SOFTMAX, bad).verdict == "mismatch"


def test_a_write_past_the_end_of_a_buffer_is_caught(tmp_path, softmax_port):
    store = "out[T.Cast(T.uint32, bx), c] ="
    bad = _mutant(tmp_path, softmax_port, store, store.replace("c]", "c + 1]"))
    result = _verify(SOFTMAX, bad)
    assert result.verdict == "mismatch"
    # the bounds checks drop the stray write and name it (the guard zone stays unchanged)
    writes = [s for c in result.cases for s in c.strays if s["access"] == "write"]
    assert writes and all(s["buffer"] == "out" and s["index"] == s["extent"] for s in writes)


def test_a_write_past_the_end_of_a_tile_is_caught_and_named(tmp_path, softmax_port):
    # a tile has no guard zone (a plain array on the CPU; registers or another tile on a GPU):
    # the bounds checks of verify's CPU build report the stray write, and the case fails
    bad = _mutant(tmp_path, softmax_port, _CLEAR, _clear_lanes(257))
    result = _verify(SOFTMAX, bad)
    assert result.verdict == "mismatch"
    strays = [s for c in result.cases for s in c.strays]
    assert strays and all(not c.ok for c in result.cases)
    assert {(s["access"], s["buffer"], s["index"], s["extent"]) for s in strays} == {
        ("write", "row_sum_1_chunk", 256, 256)}


def test_a_read_one_lane_past_a_buffer_is_caught_though_it_is_masked_later(tmp_path, softmax_port):
    # the last row reads one element past x: the value is never stored (the store is masked
    # again), so only the access itself can tell
    text = one_line(softmax_port.read_text())
    load = next(line for line in text.splitlines() if "T.max(row_max_chunk[j], T.if_then_else(c < cols, in_[" in line)
    bad = _mutant(tmp_path, softmax_port, load, load.replace("c < cols,", "c <= cols,", 1))
    result = _verify(SOFTMAX, bad)
    assert result.verdict == "mismatch"
    reads = [s for c in result.cases for s in c.strays if s["access"] == "read"]
    assert reads and all(s["buffer"] == "in_" and s["index"] == s["extent"] for s in reads)
    assert _verify(SOFTMAX, softmax_port).verdict == "equivalent"  # and the port itself has none


def test_rounding_follows_cuda_and_other_targets_are_flagged(tmp_path):
    port = tmp_path / "round_ties_tl.py"
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(ROUND), "-o", str(port)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    text = one_line(port.read_text())
    # rintf is ties-to-even on every target; roundf (ties away from zero) is spelled out, since
    # T.round is nearbyintf on CUDA but roundf on HIP
    assert "T.nearbyint(" in text and "T.round(" not in text
    assert _verify(ROUND, port).verdict == "equivalent"
    # T.round where the original has rintf: right on CUDA, and the CPU run follows CUDA
    even = tmp_path / "even_tl.py"
    even.write_text(text.replace("T.nearbyint(", "T.round(", 1))
    result = _verify(ROUND, even)
    assert result.verdict == "equivalent"
    assert any(n.startswith("T.round:") for n in result.target_notes)
    # T.round where the original has roundf: ties go to even on CUDA, so halfway inputs differ
    away = tmp_path / "away_tl.py"
    line = next(line for line in text.splitlines() if "away[i] =" in line)
    away.write_text(text.replace(line, line.split("=")[0] + "= T.round(x[i] * T.float32(2.0))"))
    result = _verify(ROUND, away)
    assert result.verdict == "mismatch"
    assert any(c.wide for c in result.cases if not c.ok)  # the case drawn on halfway values


def test_the_html_report_draws_where_a_mismatch_is(tmp_path, softmax_port):
    from porter.migrate.model import FileRecord, KernelRecord, RunResult
    from porter.migrate.reports import case_rows, render_html

    bad = _mutant(tmp_path, softmax_port, "if c < cols:", "if c < cols - 1:")
    report = verify(str(SOFTMAX), str(bad), VerifyOptions(compile_check=False, timeout=120))
    entry = report.as_dict()["kernels"][0]
    kernel = KernelRecord("softmax_row", 10, "ported", converted=True, verdict=entry["verdict"], verify=entry)
    rows = [r for r in case_rows(kernel) if not r["ok"]]
    assert rows and all(r["map"] for r in rows)
    # the wrong elements are the last column: only the map's last column is marked
    for r in rows:
        assert all(row[-1] > 0 for row in r["map"]) and not any(v for row in r["map"] for v in row[:-1])
    result = RunResult("migrate", str(tmp_path), None, {}, verify=True,
                       files=[FileRecord("softmax_row.cu", "cuda", "ported", kernels=[kernel], source=str(SOFTMAX))])
    page = render_html(result)
    assert 'table class="map"' in page and "confined to the tail of dimension 1" in page


def test_a_probability_drawn_above_one_is_drawn_again(tmp_path):
    source = ROOT / "samples" / "triton" / "dropout_seeded.py"
    kernel = read_source(str(source)).kernels[0]
    assert any(p["p"] > 1 for p in problem_sizes(kernel, {}))  # such a draw drops every element
    port = tmp_path / "dropout_tl.py"
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(source), "-o", str(port)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    result = _verify(source, port)
    assert result.verdict == "equivalent"
    assert all(not c.notes and 0 < c.sizes["p"] < 1 for c in result.cases)


def test_ids_the_kernel_checks_are_drawn_on_their_bounds(tmp_path):
    # `t >= classes` -> `t > classes` differs only for a target equal to classes, which ids drawn
    # inside the problem never are: the wide case puts some on and around each checked bound
    source = ROOT / "samples" / "cuda" / "cross_entropy.cu"
    port = tmp_path / "ce_tl.py"
    run = subprocess.run([sys.executable, "-m", "porter.cli", "convert", str(source), "-o", str(port)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert _verify(source, port).verdict == "equivalent"
    bad = _mutant(tmp_path, port, "targets[bx] >= classes)", "targets[bx] > classes)")
    bad.write_text(bad.read_text().replace("targets[bx] >= classes)", "targets[bx] > classes)"))
    result = _verify(source, bad)
    assert result.verdict == "mismatch" and all(c.ok for c in result.cases if not c.wide)


def test_guard_zones_count_what_an_unchecked_access_wrote_past_a_buffer():
    # the zone still covers accesses the bounds checks cannot see (vector accesses, views)
    import numpy as np

    from porter.verify.port_exec import GUARD, _guarded, _outside

    storage, view = _guarded(np.arange(10, dtype=np.float32).reshape(2, 5))
    assert view.shape == (2, 5) and _outside(storage, 10, view.dtype) == 0
    storage[GUARD + 10] = 0.0  # one past the end
    storage[GUARD - 1] = 1.0  # one before the start
    assert _outside(storage, 10, view.dtype) == 2 and view[1, 4] == 9


def test_stray_reports_are_read_from_the_run_output_once_each():
    from porter.verify.bounds_checks import MARKER, describe, strays

    text = (f"{MARKER} write tile 0 256 256\nother output\n{MARKER} write tile 0 256 256\n"
            f"{MARKER} read x 1 -1 8\n")
    found = strays(text)
    assert [(s["access"], s["buffer"], s["dim"], s["index"]) for s in found] == [
        ("write", "tile", 0, 256), ("read", "x", 1, -1)]
    assert describe(found[1]) == "read of x at index -1 of dimension 1, which has 8"


def test_a_false_assumption_of_the_aligned_program_is_caught_and_named(tmp_path):
    # `T.assume` is a promise the copy vectorizer builds on; a false one is undefined behaviour
    # that the C target would survive, so verify checks each one where it stands
    golden = ROOT / "tests" / "golden" / "samples__cuda__matmul_tiled_tl.py"
    port = tmp_path / "matmul_tiled_tl.py"
    port.write_text(golden.read_text())
    bad = _mutant(tmp_path, port, "T.assume(K % 16 == 0)", "T.assume(K % 16 != 0)")
    result = _verify(ROOT / "samples" / "cuda" / "matmul_tiled.cu", bad)
    assert result.verdict == "mismatch"
    false = [(n, s) for n, c in enumerate(result.cases) for s in c.strays]
    assert false and all(s["access"] == "assume" and s["buffer"] == "K%16!=0" for _, s in false)
    assert all(result.cases[n].sizes["K"] % 16 == 0 for n, _ in false)  # only the aligned cases
    assert all(c.ok for c in result.cases if c.sizes["K"] % 16)  # the general program assumes nothing


WHOLE_TILES = ROOT / "tests" / "fresh" / "triton" / "matmul_whole_tiles.py"


def test_unmasked_tiles_of_a_grouped_order_are_sized_by_the_tiles_the_programs_take():
    # the K loop counts tiles through a local (`k_tiles = cdiv(n_inner, BK)`), and the grouped
    # order divides by a local and a `min`: each operand's extent is still exact for whole tiles
    (kernel,) = read_source(str(WHOLE_TILES)).kernels
    assert "n_inner" in size_params(kernel) and loop_quanta(kernel)["n_inner"] == 16
    scalars = {"n_rows": 96, "n_cols": 64, "n_inner": 48, "a_row_step": 48, "a_col_step": 1,
               "b_row_step": 64, "b_col_step": 1, "c_row_step": 64, "c_col_step": 1}
    assert buffer_lengths(kernel, scalars, {}) == {"a": 96 * 48, "b": 48 * 64, "c": 96 * 64}
    # ragged sizes: the unmasked loads read the whole last tiles, which the buffers must hold
    ragged = {**scalars, "n_rows": 65, "n_inner": 33}
    assert buffer_lengths(kernel, ragged, {})["a"] == (96 - 1) * 48 + (48 - 1) + 1


def test_a_scalar_that_only_steps_rows_is_a_stride_whatever_its_name():
    (kernel,) = read_source(str(WHOLE_TILES)).kernels
    steps = {"a_row_step", "a_col_step", "b_row_step", "b_col_step", "c_row_step", "c_col_step"}
    assert stride_params(kernel) == steps
    for problem in problem_sizes(kernel, {}):
        rows, cols, inner = problem["n_rows"], problem["n_cols"], problem["n_inner"]
        for name, (r, c) in {"a": (rows, inner), "b": (inner, cols), "c": (rows, cols)}.items():
            row_step, col_step = problem[f"{name}_row_step"], problem[f"{name}_col_step"]
            addresses = {i * row_step + j * col_step for i in range(r) for j in range(c)}
            assert len(addresses) == r * c, (name, problem)  # no two elements share an address


def test_a_kernel_that_loads_tiles_without_masks_runs_whole_tiles_and_says_so():
    """The original is undefined at other sizes (it reads past them), and a port that reads
    views would read outside its tensors there: every case takes whole tiles, each size a
    different multiple (equal sizes would hide a transposed index), unless --arg gives one."""
    (kernel,) = read_source(str(WHOLE_TILES)).kernels
    problems = problem_sizes(kernel, {})
    tiles = {"n_rows": 32, "n_cols": 32, "n_inner": 16}
    for problem in problems:
        sizes = [problem[n] for n in tiles]
        assert all(problem[n] % t == 0 for n, t in tiles.items()) and len(set(sizes)) == 3, problem
    (note,) = whole_tile_notes(kernel, problems)
    assert "tiles of a, b without a mask" in note
    assert "n_cols, n_inner, n_rows are multiples of 32, 16, 32; every case takes such sizes" in note
    given = problem_sizes(kernel, {"n_rows": "40"})
    assert all(p["n_rows"] == 40 for p in given)
    assert f"; 0 of {len(given)} cases have such sizes (the others are given with --arg" in \
        whole_tile_notes(kernel, given)[0]
    (masked,) = read_source(str(ROOT / "tests" / "fresh" / "triton" / "matmul_leaky_relu.py")).kernels
    assert whole_tile_notes(masked, problem_sizes(masked, {})) == []
