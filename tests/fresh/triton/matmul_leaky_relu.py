# out = leaky_relu(a @ b), fp16 operands, fp32 accumulator, activation fused into the
# epilogue before the fp16 store.
import torch
import triton
import triton.language as tl

BM, BN, BK = 64, 64, 32
SLOPE = 0.01


@triton.jit
def leaky_relu(v, slope):
    return tl.where(v >= 0, v, v * slope)


@triton.jit
def mm_lrelu_kernel(
    A, B, C,
    M, N, K,
    s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
    slope,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    pa = A + rm[:, None] * s_am + rk[None, :] * s_ak
    pb = B + rk[:, None] * s_bk + rn[None, :] * s_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, BK)):
        kmask = rk < K - kk * BK
        a = tl.load(pa, mask=(rm[:, None] < M) & kmask[None, :], other=0.0)
        b = tl.load(pb, mask=kmask[:, None] & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        pa += BK * s_ak
        pb += BK * s_bk
    acc = leaky_relu(acc, slope)
    pc = C + rm[:, None] * s_cm + rn[None, :] * s_cn
    tl.store(pc, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul_leaky_relu(a, b, slope=SLOPE):
    M, K = a.shape
    K2, N = b.shape
    assert K == K2
    c = torch.empty((M, N), dtype=torch.float16, device=a.device)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    mm_lrelu_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        slope, BM=BM, BN=BN, BK=BK,
    )
    return c


if __name__ == "__main__":
    torch.manual_seed(0)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    a = torch.randn(97, 75, device=dev, dtype=torch.float16)
    b = torch.randn(75, 131, device=dev, dtype=torch.float16)
    ref = torch.nn.functional.leaky_relu(a.float() @ b.float(), SLOPE).half()
    torch.testing.assert_close(matmul_leaky_relu(a, b), ref, rtol=1e-2, atol=1e-2)
    # b given as a transposed view: non-unit strides on both dims
    bt = torch.randn(131, 75, device=dev, dtype=torch.float16).t()
    ref_t = torch.nn.functional.leaky_relu(a.float() @ bt.float(), SLOPE).half()
    torch.testing.assert_close(matmul_leaky_relu(a, bt), ref_t, rtol=1e-2, atol=1e-2)
    print("matmul_leaky_relu: ok")
