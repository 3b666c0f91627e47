"""int8 dequantization: y = q * scale[row], int8 in, per-row fp32 scale, fp16 out, on 2-D tiles."""
import torch
import triton
import triton.language as tl


@triton.jit
def int8_dequant_kernel(q_ptr,  # Pointer to the int8 input matrix (M, N).
                        scale_ptr,  # Pointer to the fp32 per-row scales (M).
                        out_ptr,  # Pointer to the fp16 output matrix (M, N).
                        M,  # Number of rows.
                        N,  # Number of columns.
                        stride_qm,  # Elements between two input rows.
                        stride_om,  # Elements between two output rows.
                        BLOCK_M: tl.constexpr,  # Rows per tile.
                        BLOCK_N: tl.constexpr,  # Columns per tile.
                        ):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols[None, :] < N)
    q = tl.load(q_ptr + rows[:, None] * stride_qm + cols[None, :], mask=mask, other=0)
    scale = tl.load(scale_ptr + rows, mask=row_mask, other=0.)
    y = q.to(tl.float32) * scale[:, None]
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], y.to(tl.float16), mask=mask)


def int8_dequant(q: torch.Tensor, scale: torch.Tensor):
    M, N = q.shape
    out = torch.empty((M, N), device=q.device, dtype=torch.float16)
    grid = lambda meta: (triton.cdiv(M, meta['BLOCK_M']), triton.cdiv(N, meta['BLOCK_N']))
    int8_dequant_kernel[grid](q, scale, out, M, N, q.stride(0), out.stride(0), BLOCK_M=32, BLOCK_N=128)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    q = torch.randint(-128, 128, (70, 300), device=device, dtype=torch.int8)
    scale = torch.rand(70, device=device) * 0.05
    expected = (q.float() * scale[:, None]).half()
    result = int8_dequant(q, scale)
    print(f"max abs diff: {torch.max(torch.abs(expected.float() - result.float()))}")
    assert torch.allclose(result.float(), expected.float(), rtol=1e-3, atol=1e-3)
