"""What a Triton port looks like once its buffers are views (porter/match/views.py) and its
lanes tile steps (porter/match/lanes.py): block loads and stores as T.copy between shaped
views and fragments, strided loops over T.ceildiv, and the accesses T.copy cannot take kept
as guarded reads of the view. Converted only (verify runs the samples in test_verify.py)."""

from __future__ import annotations

import importlib.util
import re
import textwrap

import pytest

from porter.pipeline import print_port, raise_to_tiles, read_source
from tests.conftest import ROOT, one_line

HEADER = "import torch\nimport triton\nimport triton.language as tl\n\n\n"


def port_of(path) -> str:
    return print_port(raise_to_tiles(read_source(str(path))), str(path))


def program(text: str, name: str) -> str:
    """The `<name>_program` factory's text."""
    start = text.index(f"def {name}_program(")
    end = text.index("\ndef ", start + 1)
    return text[start:end]


def written(tmp_path, source: str):
    path = tmp_path / "kernel.py"
    path.write_text(HEADER + textwrap.dedent(source))
    return path


def test_an_elementwise_kernel_copies_its_blocks_in_and_out():
    text = program(port_of(ROOT / "samples/triton/add.py"), "add_kernel")
    assert "x_ptr: T.Tensor((n_elements,), T.float32)" in text and "_numel" not in text
    assert "T.copy(x_ptr[block_start], x)" in text and "T.copy(y_ptr[block_start], y)" in text
    assert "T.copy(output, output_ptr[block_start])" in text
    assert text.count("T.Parallel(") == 1  # the computation alone
    assert "block_start = pid * BLOCK_SIZE" in text  # the user's names for block-wide values


def test_a_row_kernel_reads_a_strided_view_and_stores_with_a_copy():
    text = program(port_of(ROOT / "samples/triton/softmax_fused.py"), "softmax_kernel")
    assert "x_ptr: T.StridedTensor((x_ptr_batches, n_cols), (x_row_stride, 1), T.float32)" in text
    # other=-inf: T.copy pads with zero, so the padded elements then take -inf
    assert "T.copy(x_ptr[row_block * ROWS, 0], x)" in text  # several rows per block
    assert "x[r, i] = T.if_then_else(i < n_cols, x[r, i], -T.infinity(T.float32))" in text
    assert "T.copy(y, out_ptr[row_block * ROWS, 0])" in text
    assert "row_stride + i" not in text


def test_a_strided_loop_is_a_serial_loop_over_its_steps_with_copies():
    text = program(port_of(ROOT / "samples/triton/layernorm_forward.py"), "layernorm_fwd_kernel")
    assert "T.alloc_var" not in text and "while" not in text
    assert re.search(r"for (\w+) in T\.serial\(T\.ceildiv\(N, BLOCK_SIZE\)\):\n\s+off = \1 \* BLOCK_SIZE", text)
    assert "T.copy(x_ptr[row_block * ROWS, off], x)" in text


def test_a_buffer_with_an_atomic_stays_flat_and_its_reads_become_a_copy():
    text = program(port_of(ROOT / "samples/triton/histogram_atomic.py"), "histogram_kernel")
    assert re.search(r"T\.copy\(x_ptr\[[^\]]+\], values\)", text)
    assert "bins_ptr: T.Tensor((bins_ptr_numel,)" in text


def test_masks_other_than_the_bound_keep_guarded_reads_and_scalars_stay_scalar(tmp_path):
    path = written(tmp_path, """
        @triton.jit
        def scaled_kernel(x_ptr, scale_ptr, out_ptr, n, BLOCK: tl.constexpr):
            pid = tl.program_id(0)
            offs = pid * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            scale = tl.load(scale_ptr)
            x = tl.load(x_ptr + offs, mask=mask, other=-1.0)
            y = tl.where(x > 0, x * scale, x)
            tl.store(out_ptr + offs, y.to(tl.float16), mask=mask)


        def scaled(x, scale):
            out = torch.empty(x.shape, dtype=torch.float16, device=x.device)
            n = x.numel()
            scaled_kernel[(triton.cdiv(n, 256),)](x, scale, out, n, BLOCK=256)
            return out
        """)
    text = program(port_of(path), "scaled_kernel")
    assert "scale = scale_ptr[0]" in text  # once per block, before the block's steps
    # other=-1: the copy pads with zero, the padded elements then take -1
    assert "T.copy(x_ptr[BLOCK * pid], x)" in text
    assert "x[i] = T.if_then_else(pid * BLOCK + i < n, x[i], T.float32(-1.0))" in text
    # y is float32, out_ptr float16: the converted values are staged (a converting T.copy reads
    # past its view on the GPU in tilelang 0.1.15) and copied out whole
    assert "out_ptr_tile[i] = T.Cast(T.float16, y[i])" in text and "T.copy(out_ptr_tile, out_ptr[BLOCK * pid])" in text


@pytest.mark.parametrize("mask, load", [
    ("cols < n_cols", "T.copy(x_ptr[row_block * ROWS, 0], x)"),  # exactly the view's bound: a copy
    # the view is (n_rows, n_cols); one row per block (ROWS rows would bind n_rows to the grid's)
    ("(cols < n_cols) & (row < n_rows)", "T.copy(x_ptr[row, 0], x)"),
    # a condition more: the view's region copied, then the load's own mask picks what it reads
    ("(cols < n_cols) & (limit > 0)", "T.copy(x_ptr[row_block * ROWS, 0], x)\n"
     "            for r, i in T.Parallel(ROWS, BLOCK):\n"
     "                x[r, i] = T.if_then_else(\n                    T.And(i < n_cols, limit > 0), x[r, i]"),
    ("(cols < n_cols) & (cols < limit)", "x_ptr[(row_block * ROWS + r) * stride + i]"),  # which is the rows' length? flat
])
def test_a_copy_takes_a_load_under_the_views_bound_its_own_mask_applied_after(tmp_path, mask, load):
    path = written(tmp_path, f"""
        @triton.jit
        def rows_kernel(x_ptr, out_ptr, n_rows, n_cols, stride, limit, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            cols = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + row * stride + cols, mask={mask}, other=0.0)
            tl.store(out_ptr + row * stride + cols, x * 2.0, mask=cols < n_cols)


        def rows(x):
            out = torch.empty_like(x)
            rows_kernel[(x.shape[0],)](x, out, x.shape[0], x.shape[1], x.stride(0), x.shape[1], BLOCK=128)
            return out
        """)
    text = program(port_of(path), "rows_kernel")
    assert load in text
    rows = "n_rows" if "n_rows" in mask else "x_ptr_batches"
    assert (f"x_ptr: T.StridedTensor(({rows}, n_cols), (stride, 1), T.float32)" in text) is \
        ("cols < limit" not in mask)
    assert re.search(r"T\.copy\(\w+, out_ptr\[(row|row_block \* ROWS), 0\]\)", text)


def test_a_maximum_the_argmax_also_takes_is_reduced_once(tmp_path):
    path = written(tmp_path, """
        @triton.jit
        def max_and_argmax_kernel(x_ptr, max_ptr, idx_ptr, n_cols, stride, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            cols = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
            m = tl.max(x, axis=0)
            i = tl.argmax(x, axis=0)
            tl.store(max_ptr + row, m)
            tl.store(idx_ptr + row, i.to(tl.int32))


        def max_and_argmax(x):
            m = torch.empty(x.shape[0], device=x.device)
            i = torch.empty(x.shape[0], dtype=torch.int32, device=x.device)
            max_and_argmax_kernel[(x.shape[0],)](x, m, i, x.shape[1], x.stride(0), BLOCK=1024)
            return m, i
        """)
    text = program(port_of(path), "max_and_argmax_kernel")
    assert text.count("T.reduce_max(x, ") == 1
    assert re.search(r"T\.copy\((\w+), max_ptr\[row_block \* ROWS\]\)", text).group(1) in re.search(
        r"T\.reduce_max\(x, (\w+), dim=1\)", text).group(1)


def test_a_kernel_without_parameters_ports_to_valid_python(tmp_path):
    """FlagGems' `flash_fwd_bh_parallel_kernel()` (a stub, `pass`): its wrapper was `def
    _k(, *, grid=None, ...)`."""
    import ast

    path = written(tmp_path, """
        @triton.jit
        def nothing_kernel():
            pass


        def nothing():
            nothing_kernel[(1,)]()
        """)
    text = port_of(path)
    ast.parse(text)
    assert "def nothing_kernel(**launch):" in text


def test_a_dequantize_copies_its_packed_tile_and_its_row_scales_once():
    """A per-row scale read across a 2-D block is a (BLOCK_M,) fragment copied once, not a
    (BLOCK_M, BLOCK_N) gather that reads each scale BLOCK_N times."""
    text = program(port_of(ROOT / "samples/triton/int8_dequant_scale.py"), "int8_dequant_kernel")
    assert "T.copy(q_ptr[BLOCK_M * pid_m, BLOCK_N * pid_n], q)" in text
    assert "scale = T.alloc_fragment((BLOCK_M,), T.float32)" in text
    assert "T.copy(scale_ptr[BLOCK_M * pid_m], scale)" in text
    assert "* scale[i]" in text


def test_a_constexpr_row_length_is_the_views_extent(tmp_path):
    """Liger's `n_cols: tl.constexpr` and `X_ptr += row * X_stride` with a 64-bit row."""
    path = written(tmp_path, """
        @triton.jit
        def relu_sq_kernel(Y_ptr, Y_stride, X_ptr, X_stride, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr):
            row = tl.program_id(0).to(tl.int64)
            cols = tl.arange(0, BLOCK_SIZE)
            mask = cols < n_cols
            X_ptr += row * X_stride
            Y_ptr += row * Y_stride
            x = tl.load(X_ptr + cols, mask=mask, other=0)
            y = tl.maximum(x, 0)
            tl.store(Y_ptr + cols, y * y, mask=mask)


        def relu_sq(x):
            y = torch.empty_like(x)
            relu_sq_kernel[(x.shape[0],)](y, y.stride(0), x, x.stride(0), n_cols=x.shape[1], BLOCK_SIZE=128)
            return y
        """)
    text = port_of(path)
    factory = program(text, "relu_sq_kernel")
    assert "X_ptr: T.StridedTensor((X_ptr_batches, n_cols), (X_stride, 1), T.float32)" in factory
    assert re.search(r"T\.copy\(X_ptr\[bx \* ROWS, 0\], x\)", factory)
    assert '_batched(X_ptr, "X_ptr", "float32", (None, n_cols), (X_stride, 1))' in text


FLAG_SHIFTED_WEIGHT = """\
    @triton.jit
    def scale_rows(x_ptr, w_ptr, y_ptr, stride, n_cols, SHIFTED: tl.constexpr, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
        if SHIFTED:
            w = tl.load(w_ptr + cols + 1, mask=mask, other=0.0)
        else:
            w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * stride + cols, x * w, mask=mask)


    def run(x, w, shifted):
        y = torch.empty_like(x)
        scale_rows[(x.shape[0],)](x, w, y, x.stride(0), x.shape[1], SHIFTED=shifted, BLOCK=64)
        return y
"""


def test_a_buffer_one_variant_reads_otherwise_stays_flat_and_the_others_are_views(tmp_path):
    """The flag's variants share one signature: `w_ptr + cols + 1` is no view in the SHIFTED
    variant, so w_ptr is flat in both, while x_ptr and y_ptr (read alike by both) are views
    copied in and out (before, one disagreeing buffer kept every buffer of the kernel flat)."""
    text = program(port_of(written(tmp_path, FLAG_SHIFTED_WEIGHT)), "scale_rows")
    assert "x_ptr: T.StridedTensor((x_ptr_batches, n_cols), (stride, 1), T.float32)" in text
    assert "w_ptr: T.Tensor((w_ptr_numel,), T.float32)" in text
    assert "T.copy(x_ptr[bx * ROWS, 0], x)" in text and re.search(r"T\.copy\(\w+, y_ptr\[bx \* ROWS, 0\]\)", text)
    assert text.count("@T.prim_func") == 1 and "if SHIFTED:" in text


ROWS_BY_STEPS = """\
    @triton.jit
    def negate_rows(x_ptr, y_ptr, label_ptr, stride, n_cols, IGNORE: tl.constexpr, BLOCK: tl.constexpr):
        pid = tl.program_id(0).to(tl.int64)
        label = tl.load(label_ptr + pid)
        if label == IGNORE:
            for i in range(0, n_cols, BLOCK):
                offs = i + tl.arange(0, BLOCK)
                tl.store(y_ptr + pid * stride + offs, 0.0, mask=offs < n_cols)
            return
        for i in range(0, n_cols, BLOCK):
            offs = i + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + pid * stride + offs, mask=offs < n_cols, other=0.0)
            tl.store(y_ptr + pid * stride + offs, -x * 2.0, mask=offs < n_cols)


    def negate(x, labels):
        y = torch.empty_like(x)
        negate_rows[(x.shape[0],)](x, y, labels, x.stride(0), x.shape[1], IGNORE=-100, BLOCK=32)
        return y
"""


def test_control_flow_every_lane_takes_stays_outside_the_steps(tmp_path):
    """A row kernel whose lanes loop over the columns (Liger's jsd, kl_div backward): the
    branch on the row's label and the column loops are the block's, each step inside them is
    copies and one T.Parallel (before, the whole body ran inside one T.Parallel over the
    lanes, every access a flat gather)."""
    text = program(port_of(written(tmp_path, ROWS_BY_STEPS)), "negate_rows")
    assert "x_ptr: T.StridedTensor((x_ptr_batches, n_cols), (stride, 1), T.float32)" in text
    assert re.search(r"\n( +)label = label_ptr\[pid\]\n\1if label == IGNORE:\n", text)
    loop = re.search(r"\n( +)for (\w+) in T\.serial\(T\.ceildiv\(n_cols, BLOCK\)\):\n\1    i(_\d)? = \2 \* BLOCK\n", text)
    assert loop and "for tx in T.Parallel" not in text
    assert re.search(r"T\.copy\(x_ptr\[pid, i(_\d)?\], x\)", text) and re.search(r"T\.copy\(\w+, y_ptr\[pid, i", text)


def test_a_half_accumulator_sums_in_float32_and_rounds_once():
    """`__half psum` in an FMA loop raised onto T.gemm: the fragment accumulates in float32
    (tensor cores' own accumulator) and is rounded to half once, at the store; the header says
    so (verified against the original: within fp16 tolerance for K up to 65)."""
    text = port_of(ROOT / "tests/real_cuda/hgemm_half_accumulator.cu")
    assert "acc = T.alloc_fragment((64, 64), T.float32)" in text and "T.gemm(a_tile, b_tile, acc)" in text
    assert "T.Cast(T.float16, acc[i, j])" in text
    assert "float32 accumulation (the original sums in float16)" in " ".join(text.split())


CONSTEXPR_ROWS = """\
    @triton.jit
    def scale_shift(X, Y, G, B, N: tl.constexpr, BLOCK_N: tl.constexpr, HAVE_B: tl.constexpr,
                    COL_STRIDE: tl.constexpr = 1):
        col = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
        mask = col < N
        row = tl.program_id(1).to(tl.int64)
        X += row * N
        Y += row * N
        x = tl.load(X + col * COL_STRIDE, mask=mask, other=0.0)
        g = tl.load(G + col, mask=mask, other=0.0)
        y = x * g
        if HAVE_B:
            y += tl.load(B + col, mask=mask, other=0.0)
        tl.store(Y + col * COL_STRIDE, y, mask=mask)


    def run(x, g, b=None):
        y = torch.empty_like(x)
        rows, n = x.shape
        scale_shift[(triton.cdiv(n, 32), rows)](x, y, g, b, N=n, BLOCK_N=32, HAVE_B=b is not None)
        return y
"""


def test_constexpr_sizes_and_unit_strides_shape_views_and_an_unused_buffer_is_declared_alike(tmp_path):
    """Liger's style: the row length a constexpr (`X += row * N`: N is the row stride and the
    columns' bound), a column stride constexpr of 1, and a bias only one flag value reads: the
    rows are a view (N, 1) copied in and out, the bias the same (N,) view in both variants (a
    buffer one form never touches no longer keeps the others flat)."""
    text = program(port_of(written(tmp_path, CONSTEXPR_ROWS)), "scale_shift")
    assert "X: T.StridedTensor((X_batches, N), (N, 1), T.float32)" in text
    assert "G: T.Tensor((N,), T.float32)" in text and "B: T.Tensor((N,), T.float32)" in text
    assert "_numel" not in text
    assert "T.copy(X[row, BLOCK_N * bx], x)" in text and "T.copy(G[BLOCK_N * bx], g)" in text
    assert re.search(r"T\.copy\(\w+, Y\[row, BLOCK_N \* bx\]\)", text)


def test_a_view_other_forms_give_is_not_declared_on_a_scalar(tmp_path):
    """A pointer a form never touches may be typed a scalar there (Liger's fused_moe passes
    another argument): the view the other forms give it is declared only on a buffer (it was
    dataclasses.replace(ScalarParam, shape=...): TP014 on the whole file)."""
    import dataclasses

    from porter.frontends.triton import convert_triton
    from porter.ir.nodes import ScalarParam
    from porter.match.lanes import staged_lanes
    from porter.match.views import found_views, shaped_views

    (kernel,) = convert_triton(str(written(tmp_path, CONSTEXPR_ROWS))).kernels
    kernel = staged_lanes(kernel)
    views, _, _ = found_views(kernel)
    scalar = dataclasses.replace(kernel, params=[ScalarParam(p.name, "int32") if p.name == "B" else p
                                                 for p in kernel.params])
    out = shaped_views(scalar, only=set(views), unused={"B": views["G"]})
    assert isinstance(out.param("B"), ScalarParam) and out.param("X").shape


def test_a_pointer_one_form_types_a_scalar_leaves_the_other_views(tmp_path):
    """Liger's rms_norm: a form that never touches W_ptr types it int32, so W_ptr cannot be a
    view in every form; it stays as it is, and X and Y are still views in all of them (the
    disagreeing signature had dropped every view of the kernel)."""
    import dataclasses

    from porter.frontends.triton import convert_triton
    from porter.ir.forms import forms
    from porter.ir.nodes import ScalarParam
    from porter.match import _with_copies

    (kernel,) = convert_triton(str(written(tmp_path, CONSTEXPR_ROWS))).kernels
    assert kernel.variants
    variant = dataclasses.replace(kernel.variants[0], params=[
        ScalarParam("B", "int32") if p.name == "B" else p for p in kernel.variants[0].params])
    out = _with_copies(dataclasses.replace(kernel, variants=[variant]))
    for form in forms(out):
        assert form.param("X").shape and form.param("G").shape and not getattr(form.param("B"), "shape", None)


def test_a_row_narrower_than_the_block_takes_several_rows_per_block():
    """tests/fresh/triton/narrow_rows.py (verified in test_verify.py): one program per row
    becomes ROWS rows per block, the fragments (ROWS, BLOCK), the per-row scalars (ROWS,)
    fragments, the row's reductions along dim 1, the grid ceildiv(rows, ROWS); a vector read or
    written one element a row is copied by the block's rows, other reads and writes of single
    elements run for the grid's rows only, and the wrapper cuts views and vectors to them."""
    text = port_of(ROOT / "tests/fresh/triton/narrow_rows.py")
    rms = program(text, "rms_rows_kernel")
    assert "ROWS = max(1, threads // BLOCK)" in rms
    assert "with T.Kernel(T.ceildiv(grid_x, ROWS), threads=threads) as bx:" in rms
    assert "x = T.alloc_fragment((ROWS, BLOCK), T.float32)" in rms
    assert "w = T.alloc_fragment((BLOCK,), T.float32)" in rms  # the weights every row shares
    assert "rstd = T.alloc_fragment((ROWS,), T.float32)" in rms
    assert "T.copy(x_ptr[bx * ROWS, 0], x)" in rms and "T.copy(y_ptr_tile, y_ptr[bx * ROWS, 0])" in rms
    assert "T.reduce_sum(x_1, x_sum, dim=1)" in rms
    # one element a row (a scale read, the rstd stored): the block's rows copied
    assert "T.copy(s_ptr[bx * ROWS], scale)" in rms and "T.copy(rstd, rstd_ptr[bx * ROWS])" in rms
    assert "row = T.alloc_fragment" not in rms  # the int64 row only the copies read: dropped
    assert 'x_ptr = x_ptr[: grid[0]]' in text and 'y_ptr = y_ptr[: grid[0]]' in text
    assert 'rstd_ptr = rstd_ptr[: grid[0]]' in text and 's_ptr = s_ptr[: grid[0]]' in text
    label = program(text, "pick_label_kernel")
    # the label's column of each row: a scalar read of the view, for the grid's rows
    assert "T.copy(labels_ptr[pid_block * ROWS], label)" in label
    assert re.search(r"if pid_block \* ROWS \+ r < grid_x:\n\s+picked\[r\] = logits_ptr\[pid_block \* ROWS \+ r, label\[r\]\]",
                     label)


def test_a_kernel_whose_program_id_is_not_a_row_keeps_one_program_per_block():
    text = program(port_of(ROOT / "samples/triton/add.py"), "add_kernel")
    assert "ROWS" not in text


def test_a_row_read_in_parts_is_a_view_of_its_parts():
    """tests/fresh/triton/row_parts.py (verified in test_verify.py): `x + H + cols` beside
    `x + cols` under `cols < H` reads the second H columns of the row: the view (rows, 2, H),
    each part copied from its index; a constexpr width folded into the index's constant alike."""
    text = port_of(ROOT / "tests/fresh/triton/row_parts.py")
    geglu = program(text, "geglu_rows_kernel")
    assert "x_ptr: T.StridedTensor((x_ptr_batches, 2, H), (x_stride, H, 1), T.float32)" in geglu
    assert "T.copy(x_ptr[row, 0, 0], gate)" in geglu and "T.copy(x_ptr[row, 1, 0], value)" in geglu
    qkv = program(text, "split_qkv_kernel")
    assert "qkv_ptr: T.StridedTensor((qkv_ptr_batches, 3, D), (stride, D, 1), T.float32)" in qkv
    assert all(f"T.copy(qkv_ptr[pid, {n}, 0], {t})" in qkv for n, t in enumerate("qkv"))


def test_a_converted_load_is_copied_as_stored_then_converted():
    """tests/fresh/triton/half_rows_sum.py (verified in test_verify.py): `tl.load(...)
    .to(tl.float32)` of a float16 row is a copy into a float16 fragment (a converting T.copy
    reads past its view on a GPU, tilelang 0.1.15) and a step that converts; the grid
    `(M, 1, 1)` is one axis of rows, several per block."""
    text = program(port_of(ROOT / "tests/fresh/triton/half_rows_sum.py"), "half_rows_sum_kernel")
    assert "x_float16 = T.alloc_fragment((ROWS, TILE_N), T.float16)" in text
    assert "T.copy(x_ptr[pid_block * ROWS, start], x_float16)" in text
    assert "x[r, i] = T.Cast(T.float32, x_float16[r, i])" in text  # other 0: the copy's padding
    assert "T.Kernel(T.ceildiv(grid_x, ROWS), grid_y, grid_z, threads=threads)" in text


def test_a_strided_per_row_vector_is_a_view_its_rows_copy_into():
    """`mean_ptr + row_idx * mean_stride`, read and written one element at a time, is the
    vector view (rows,) with that stride (views.py); several rows per block copy their means
    into it at the block's first row."""
    text = program(port_of(ROOT / "tests/fresh/triton/narrow_rows.py"), "row_means_kernel")
    assert "mean_ptr: T.StridedTensor((mean_ptr_batches,), (mean_stride,), T.float32)" in text
    assert re.search(r"T\.copy\(\w+, mean_ptr\[bx \* ROWS\]\)", text)


def test_loads_and_stores_without_a_mask_copy_whole_tiles():
    """tests/fresh/triton/whole_tile_rows.py (verified in test_verify.py): a launcher that
    passes whole tiles only leaves the loads and stores unmasked (or `mask=True`); the buffer
    is then the view of as many rows as the tensor holds, each as wide as its row stride (or
    the vector of its elements), and each tile is a T.copy, the lane's named index too."""
    text = port_of(ROOT / "tests/fresh/triton/whole_tile_rows.py")
    rows = program(text, "row_min_kernel")
    assert "inp: T.StridedTensor((inp_batches, n_cols), (n_cols, 1), T.float32)" in rows
    assert re.search(r"T\.copy\(inp\[BLOCK_M \* \w+, [^\]]+\], vals\)", rows)
    assert re.search(r"T\.copy\(best, out_min\[BLOCK_M \* \w+\]\)", rows)
    assert "inp[" not in rows.replace("T.copy(inp[", "")  # no element of it read otherwise
    scale = program(text, "scale_shift_kernel")
    assert re.search(r"T\.copy\(x\[[^\]]+\], v\)", scale) and re.search(r"T\.copy\(y_tile, y\[[^\]]+\]\)", scale)
    assert "T.Parallel" in scale and "offs" not in scale  # the lane's index went with its loop
    # `off_m * HEAD_DIM + d` passes the row stride N_CTX it is addressed through: no such view
    dots = program(text, "head_dots_kernel")
    assert "O: T.Tensor((O_numel,), T.float32)" in dots and "(O_batches, N_CTX)" not in dots
    assert re.search(r"T\.copy\(\w+, Delta\[", dots)


def test_a_bound_the_constexprs_fold_to_a_number_is_a_views_extent():
    """tests/fresh/triton/rotary_half_table.py (verified in test_verify.py): the cos/sin table
    read under `half < ROT // 2` (a number once ROT is known) at the row `tl.where(TABLE_BATCHES
    == 1, pos * stride, ...)` picks: a view of rows that many wide, copied whole."""
    text = program(port_of(ROOT / "tests/fresh/triton/rotary_half_table.py"), "rotate_heads_kernel")
    assert re.search(r"cos_ptr: T\.StridedTensor\(\(cos_ptr_batches, \d+\), \(table_stride, 1\), T\.float32\)", text)
    assert re.search(r"T\.copy\(cos_ptr\[\w+, 0\], cos\)", text) and re.search(r"T\.copy\(sin_ptr\[\w+, 0\], sin\)", text)
    assert "if_then_else(True" not in text


def test_a_fold_by_a_combine_function_runs_to_the_blocks_extent_by_name():
    """tests/fresh/triton/sized_folds.py (verified in test_verify.py): tl.reduce's serial fold
    over a block the launcher sizes (`BLOCK=triton.next_power_of_2(count)`, a program
    parameter) runs to that parameter, not to the number the kernel was converted with (the
    previous head's port of it folded 1024 elements of every block: verify found all three
    mismatched), and its operand, though a shared tile, is a T.copy."""
    text = port_of(ROOT / "tests/fresh/triton/sized_folds.py")
    for kernel, block in (("all_flags_kernel", "BLOCK"), ("row_product_kernel", "WIDTH"),
                          ("column_bits_kernel", "ROWS")):
        body = program(text, kernel)
        assert f"def {kernel}_program({block}, " in text
        assert re.search(rf"for \w+ in T\.serial\(1, {block}\):", body), body
    # the fold's operand, a shared tile, is copied in like a fragment (views.py)
    assert re.search(r"T\.copy\(flags\[0\], \w+\)", program(text, "all_flags_kernel"))
    assert re.search(r"T\.copy\(x\[row, 0\], v\)", program(text, "row_product_kernel"))


def test_hand_peeled_tiles_are_one_masked_loop():
    """tests/fresh/triton/peeled_tiles.py (verified in test_verify.py): a loop over whole tiles
    and its ragged last tile peeled off (into a loop of its own, first in a reversed walk, or
    written out after a loop over tile indices) are one loop whose masked copy covers the tail, at the original's bound; a peel after
    `n // BLOCK * BLOCK` is not the last tile (it may start at n) and stays as written."""
    text = port_of(ROOT / "tests/fresh/triton/peeled_tiles.py")
    sumsq = program(text, "row_sumsq_kernel")
    assert sumsq.count("T.serial(") == 1 and "T.serial(T.ceildiv(n, BLOCK))" in sumsq
    assert re.search(r"T\.copy\(x_ptr\[\w+ \* ROWS, off\], v\)", sumsq)
    backwards = program(text, "reverse_scale_kernel")
    assert backwards.count("T.serial(") == 1 and "T.serial(T.ceildiv(n, BLOCK))" in backwards
    assert re.search(r"T\.copy\(x_ptr\[[^\]]+\], v\)", backwards) and re.search(r"T\.copy\(\w+, y_ptr\[", backwards)
    matvec = program(text, "matvec_kernel")
    assert matvec.count("T.serial(") == 1 and "T.serial(T.ceildiv(k, BLOCK_K))" in matvec
    assert re.search(r"T\.copy\(a_ptr\[BLOCK_M \* pid, start\], a\)", matvec) and "tail" not in matvec
    kept = program(text, "row_max_kernel")
    assert "T.serial(T.ceildiv(whole, BLOCK))" in kept and "whole + i < n" in kept
    # a loop over tile indices to `tiles - 1` and the last index's statements after it; their
    # locals (offs, v) are taken up again, assigned first, by the second pass
    rms = program(text, "row_rms_kernel")
    assert rms.count("in T.serial(tiles):") == 2 and "tiles - 1" not in rms
    assert re.search(r"T\.copy\(x_ptr\[row_block \* ROWS, BLOCK \* t\], v\)", rms)
    # a last tile that also computes with its mask (tl.where, the mask counted) merges too
    running = program(text, "running_mean_kernel")
    assert running.count("T.serial(") == 1 and "in T.serial(tiles):" in running and "tiles - 1" not in running


def test_a_peeled_local_updated_after_the_peel_keeps_the_peel(tmp_path):
    """`v += 1.0` after the peeled statements reads the peel's v: merged into the loop, v was
    the loop's local and the kernel failed to convert (TP226 unknown name 'v'). The peel stays."""
    path = written(tmp_path, """
        @triton.jit
        def tail_then_bumped(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            last = tl.cdiv(n, BLOCK) * BLOCK - BLOCK
            acc = tl.zeros([BLOCK], dtype=tl.float32)
            for k0 in range(0, last, BLOCK):
                offs = k0 + tl.arange(0, BLOCK)
                v = tl.load(x_ptr + offs)
                acc += v
            offs = last + tl.arange(0, BLOCK)
            v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
            acc += v
            v += 1.0
            tl.store(out_ptr + tl.arange(0, BLOCK), acc + v)
    """)
    text = program(port_of(path), "tail_then_bumped")
    assert "T.ceildiv(last, BLOCK)" in text and "T.ceildiv(n, BLOCK))" not in text


def test_a_peeled_k_tail_merges_and_dot_options_accumulate_in_place():
    """tests/fresh/triton/matmul_peeled_k.py (verified in test_verify.py): the K loop and its
    peeled last tile are one pipelined loop over ceildiv(K, BK) whose operands are copies
    (rows wrapped by `% M` on 64-bit offsets included), and `acc += tl.dot(a, b,
    allow_tf32=False, out_dtype=tl.float32)` adds into acc itself, no temporary per product."""
    text = program(one_line(port_of(ROOT / "tests/fresh/triton/matmul_peeled_k.py")), "peeled_matmul_kernel")
    assert text.count("T.Pipelined(") == 1 and "T.Pipelined(T.ceildiv(K, BK)" in text
    assert "T.copy(a_ptr[BM * pid_m, k0], a)" in text and "T.copy(b_ptr[k0, BN * pid_n], b)" in text
    assert re.search(r"acc\[acc_i, acc_j\] = \(?acc\[acc_i, acc_j\] \+ a\[", text)
    assert "T.alloc_fragment" in text and text.count("T.alloc_fragment") == 1  # acc alone


def test_a_64_bit_pointer_advanced_by_its_step_times_a_stride_is_a_copy():
    """tests/fresh/triton/advanced_rows_int64.py (verified in test_verify.py): `a_ptrs +=
    BLOCK_M * stride_am` on 64-bit offsets is `m * stride_am` at loop variable m (it was
    `(m // 32) * (BLOCK_M * stride_am)`, which no view reads), so the tile is a copy of the
    strided view."""
    text = program(port_of(ROOT / "tests/fresh/triton/advanced_rows_int64.py"), "row_dot_kernel")
    assert "a_ptr: T.StridedTensor((N, M), (stride_an, stride_am), T.float32)" in text
    assert "T.copy(a_ptr[BLOCK_N * pid, m], a)" in text and "truncdiv" not in text



def test_blocks_with_a_dimension_of_one_are_blocks_of_the_other():
    """tests/fresh/triton/advanced_rows_int64.py (verified in test_verify.py): the vector read
    as `v_ptrs = v_ptr + cols` with `cols = arange(0, BLOCK_M)[None, :]` and the row sums
    stored as `tl.sum(total, axis=1)[:, None]` are (BLOCK_M,) and (BLOCK_N,) tiles copied in
    and out, no (1, BLOCK_M) tile filled by `T.Parallel(1, BLOCK_M)`."""
    text = program(port_of(ROOT / "tests/fresh/triton/advanced_rows_int64.py"), "row_dot_kernel")
    assert "T.copy(v_ptr[m], v)" in text and "T.copy(x_sum, out_ptr[BLOCK_N * pid])" in text
    assert "v = T.alloc_fragment((BLOCK_M,), T.float32)" in text
    assert not re.search(r"T\.Parallel\((1, \w+|\w+, 1)\)", text) and text.count("T.Parallel(") == 1


def test_offsets_advanced_each_iteration_are_a_closed_form_and_their_loads_copies():
    """tests/fresh/triton/carried_offsets.py (verified in test_verify.py): a block of flat
    offsets, its columns and a scalar start advanced by a loop-invariant amount per iteration
    (`offsets += BLOCK_N`) are `start + step * BLOCK_N` read where used: no fragment carries
    them, and the loads and stores through them are copies from shaped views; a count advanced
    by one per BLOCK-step iteration is the step's index by BLOCK's name (the port stays generic)."""
    text = port_of(ROOT / "tests/fresh/triton/carried_offsets.py")
    rows = program(text, "rows_sum_kernel")
    assert "offsets" not in rows and "cols" not in rows and "_numel" not in rows
    assert re.search(r"T\.copy\(x_ptr\[BLOCK_M \* pid, \w+\], \w+\)", rows)
    scale = program(text, "row_scale_kernel")
    assert "T.alloc_var" not in scale and "_numel" not in scale and scale.count("T.copy(") == 2
    shift = program(text, "row_shift_kernel")
    assert "T.truncdiv(k, BLOCK)" in shift and "T.alloc_var" not in shift and "_numel" not in shift
    assert "_specialised(\"row_shift_kernel\"" not in text


def test_a_carried_block_that_starts_from_loaded_values_reads_them_plus_the_steps(tmp_path):
    """A block of offsets loaded before the loop and advanced in it is the loaded fragment (set
    once, never written again) plus the steps taken: nothing is carried."""
    text = port_of(written(tmp_path, """
        @triton.jit
        def k(x_ptr, idx_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.load(idx_ptr + tl.arange(0, BLOCK)).to(tl.int32)
            acc = tl.zeros([BLOCK], dtype=tl.float32)
            for _ in range(0, n):
                acc += tl.load(x_ptr + offs)
                offs += BLOCK
            tl.store(y_ptr + tl.arange(0, BLOCK), acc)
    """))
    body = program(text, "k")
    assert re.search(r"x_ptr\[offs\[i\] \+ \w+ \* BLOCK\]", body)
    assert not re.search(r"offs\w*\[i\] = offs\w*\[i\] \+ BLOCK", body)


def test_interleaved_records_are_columns_of_a_view_copied_a_field_at_a_time():
    """tests/fresh/triton/interleaved_records.py (verified in test_verify.py): a vector read at
    `offs * W + c` (complex pairs, RGB triples) is the (n, W) view, each field a column region
    copied in or out (`z_ptr[s:s + BLOCK, 1]`), the stores of one block each a copy."""
    text = port_of(ROOT / "tests/fresh/triton/interleaved_records.py")
    absolute = program(text, "complex_abs_kernel")
    assert "z_ptr: T.Tensor((n, 2), T.float32)" in absolute
    assert re.search(r"T\.copy\(z_ptr\[(\w+ \* \w+) : \1 \+ BLOCK, 1\], im\)", absolute)
    conj = program(text, "conjugate_kernel")
    assert re.search(r"T\.copy\(re, out_ptr\[[^\]]+, 0\]\)", conj) and "_numel" not in conj
    assert re.search(r"T\.copy\(\s*\w+,\s*out_ptr\[[^\]]+, 1\],?\s*\)", conj)
    gray = program(text, "rgb_to_gray_kernel")
    assert "rgb_ptr: T.Tensor((pixels, 3), T.float32)" in gray and gray.count(", 2], b)") == 1


def test_records_read_at_a_lane_multiple_that_is_not_one_width_stay_flat(tmp_path):
    """Accesses disagreeing on the record's width (`offs * 2` and `offs * 3`) are no view."""
    text = port_of(written(tmp_path, """
        @triton.jit
        def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            a = tl.load(x_ptr + offs * 2, mask=offs < n, other=0.0)
            b = tl.load(x_ptr + offs * 3, mask=offs < n, other=0.0)
            tl.store(y_ptr + offs, a + b, mask=offs < n)
    """))
    assert "x_ptr: T.Tensor((x_ptr_numel,), T.float32)" in program(text, "k")


def test_a_specialised_program_sets_its_constexprs_before_the_sizes_computed_from_them(tmp_path):
    """A port specialised for a constexpr (its body folds BLOCK // 2 to a number) that puts
    several rows in a block computes ROWS from BLOCK: BLOCK is set first, and the program builds."""
    path = written(tmp_path, """
        @triton.jit
        def half_scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            cols = tl.arange(0, BLOCK)
            v = tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0)
            tl.store(y_ptr + row * n + cols, v * (BLOCK // 2), mask=cols < n)

        def half_scale(x):
            y = torch.empty_like(x)
            half_scale_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=32)
            return y
    """)
    text = port_of(path)
    factory = program(text, "half_scale_kernel")
    assert "ROWS = max(1, threads // BLOCK)" in factory
    assert factory.index("BLOCK = 32") < factory.index("ROWS = max(1, threads // BLOCK)")
    port = tmp_path / "half_scale_port.py"
    port.write_text(text)
    spec = importlib.util.spec_from_file_location("half_scale_port", port)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.half_scale_kernel_program() is not None  # TVMScript reads the file's source


def test_a_count_advanced_by_the_loop_variable_or_another_carried_value_stays_carried(tmp_path):
    """Only an amount the same every iteration has a closed form: `t += i` (the loop variable)
    and `a += b` (b advanced in the loop) stay loop-carried; b, advanced by 2, is `1 + i * 2`."""
    text = port_of(written(tmp_path, """
        @triton.jit
        def k(out_ptr, n, BLOCK: tl.constexpr):
            t = 0
            a = 0
            b = 1
            for i in range(0, n):
                t += i
                a += b
                b += 2
            offs = tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, offs * 0 + t + a * 1000)
    """))
    body = program(text, "k")
    assert re.search(r"t\w* = t\w* \+ i\n", body) and re.search(r"a\w* = a\w* \+ 1 \+ i \* 2\n", body)


def test_strides_a_launcher_passes_as_constexprs_shape_a_strided_view():
    """tests/fresh/triton/constexpr_strides.py (verified in test_verify.py): `rows * stride_m +
    cols * stride_n` with both strides constexprs (a lane scaled by each) is the strided view,
    its blocks copied."""
    text = program(port_of(ROOT / "tests/fresh/triton/constexpr_strides.py"), "row_scale_2d_kernel")
    assert "x_ptr: T.StridedTensor((M, N), (stride_m, stride_n), T.float32)" in text
    assert "T.copy(x_ptr[BLOCK_M * bx, BLOCK_N * by], x)" in text and "_numel" not in text


def test_constexpr_strides_over_sizes_known_at_run_time_stay_flat(tmp_path):
    """tilelang 0.1.15 cannot build a view whose strides are numbers and sizes symbolic (its
    adapter compares them): with M and N arguments the buffer stays flat."""
    text = program(port_of(written(tmp_path, """
        @triton.jit
        def k(x_ptr, y_ptr, M, N, stride_m: tl.constexpr, stride_n: tl.constexpr, BLOCK: tl.constexpr):
            rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            cols = tl.arange(0, BLOCK)
            mask = (rows[:, None] < M) & (cols[None, :] < N)
            offs = rows[:, None] * stride_m + cols[None, :] * stride_n
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
    """)), "k")
    assert "x_ptr: T.Tensor((x_ptr_numel,), T.float32)" in text


def test_blocks_across_a_middle_dimension_copy_a_region_at_the_last_index():
    """tests/fresh/triton/middle_dim.py (verified in test_verify.py): `m * N * K + n * K + k`
    with k free of the lanes is the (M, N, K) tensor read at k, the (BLOCK_M, BLOCK_N) tile a
    region of its first two dimensions; `m * K + k` stores a column of (M, K); a batch of
    (B, C) matrices read down a column is the region of one dimension at (a, c)."""
    text = port_of(ROOT / "tests/fresh/triton/middle_dim.py")
    middle = program(text, "middle_max_kernel")
    assert "x_ptr: T.Tensor((M, N, K), T.float32)" in middle and "out_ptr: T.Tensor((M, K), T.float32)" in middle
    assert re.search(r"T\.copy\(\s*x_ptr\[\s*BLOCK_M \* pid_m : BLOCK_M \* pid_m \+ BLOCK_M,\s*"
                     r"BLOCK_N \* \w+ : BLOCK_N \* \w+ \+ BLOCK_N,\s*k,?\s*\]", middle)
    assert "T.copy(x_max, out_ptr[BLOCK_M * pid_m : BLOCK_M * pid_m + BLOCK_M, k])" in middle
    column = program(text, "column_block_sum_kernel")
    assert "T.copy(x_ptr[a, BLOCK * pid_b : BLOCK * pid_b + BLOCK, c], v)" in column


def test_a_lane_scaled_by_a_size_with_a_lane_in_the_rest_is_no_fixed_index(tmp_path):
    """`i * K + j` (both lanes) has no index free of the lanes past K: the usual (rows, K) view."""
    text = program(port_of(written(tmp_path, """
        @triton.jit
        def k(x_ptr, y_ptr, M, K, BLOCK: tl.constexpr):
            i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            j = tl.arange(0, BLOCK)
            mask = (i[:, None] < M) & (j[None, :] < K)
            offs = i[:, None] * K + j[None, :]
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)
    """)), "k")
    assert "x_ptr: T.Tensor((M, K), T.float32)" in text and "x_ptr[i_1 + BLOCK * bx, j_1]" in text


def test_a_row_stride_alone_is_no_tensor_extent_and_padded_rows_stay_readable(tmp_path):
    """`rows * stride + c` (c a loop's column, rows padded past their columns): stride is a row
    stride, not the last extent of a (rows, stride) tensor, whose last row the caller's buffer
    need not hold whole; the buffer stays as it was (samples/triton/row_sumsq_loop.py, whose
    verify cases pad the rows)."""
    text = program(port_of(ROOT / "samples/triton/row_sumsq_loop.py"), "row_sumsq_kernel")
    assert "x_ptr: T.Tensor((x_ptr_numel,), T.float32)" in text
