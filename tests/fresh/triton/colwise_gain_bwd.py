# Backward of y = gain * tanh(x) over a (rows, FEATURES) half-precision matrix: dx per element,
# each program's partial d(gain) over its slice of rows, and its partial sum of dy * y (a
# scalar per program). The feature count is a constexpr and the column block is wider than it
# (one block covers every feature).
import torch
import triton
import triton.language as tl


@triton.jit
def gain_tanh_bwd(dy_ptr, x_ptr, gain_ptr, dx_ptr, dgain_part_ptr, dot_part_ptr, rows,
                  FEATURES: tl.constexpr, COLS: tl.constexpr):
    col = tl.program_id(0) * COLS + tl.arange(0, COLS)
    in_range = col < FEATURES
    part = tl.program_id(1)
    gain = tl.load(gain_ptr + col, mask=in_range, other=0.0).to(tl.float32)
    acc = tl.zeros((COLS,), dtype=tl.float32)
    dot = 0.0
    for r in range(part, rows, tl.num_programs(1)):
        x = tl.load(x_ptr + r * FEATURES + col, mask=in_range, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + r * FEATURES + col, mask=in_range, other=0.0).to(tl.float32)
        t = 2.0 / (1.0 + tl.exp(-2.0 * x)) - 1.0
        acc += dy * t
        dot += tl.sum(dy * gain * t, axis=0)
        dx = dy * gain * (1.0 - t * t)
        tl.store(dx_ptr + r * FEATURES + col, dx.to(tl.float16), mask=in_range)
    tl.store(dgain_part_ptr + part * FEATURES + col, acc, mask=in_range)
    tl.store(dot_part_ptr + part, dot)


def gain_tanh_backward(dy: torch.Tensor, x: torch.Tensor, gain: torch.Tensor, parts: int = 4):
    assert dy.dtype == x.dtype == gain.dtype == torch.float16
    rows, features = x.shape
    dx = torch.empty_like(x)
    partial = torch.empty((parts, features), dtype=torch.float32, device=x.device)
    dots = torch.empty(parts, dtype=torch.float32, device=x.device)
    gain_tanh_bwd[(1, parts)](dy, x, gain, dx, partial, dots, rows, FEATURES=features, COLS=1024)
    return dx, partial.sum(0).to(gain.dtype), dots.sum()


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(37, 16, dtype=torch.float16)
    dy = torch.randn_like(x)
    gain = torch.randn(16, dtype=torch.float16)
    print(gain_tanh_backward(dy, x, gain))
