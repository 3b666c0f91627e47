"""Per-row cross-entropy loss: logsumexp of the logits minus the target logit."""
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr,  # Pointer to the logits matrix (rows, n_classes).
                         target_ptr,  # Pointer to the int64 target class of each row.
                         loss_ptr,  # Pointer to the output loss, one value per row.
                         n_classes,  # Number of columns.
                         logits_row_stride,  # Elements between two rows of logits.
                         BLOCK_SIZE: tl.constexpr,  # Power of two >= n_classes.
                         ):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_classes
    row_ptr = logits_ptr + row * logits_row_stride
    x = tl.load(row_ptr + cols, mask=mask, other=-float('inf')).to(tl.float32)
    x_max = tl.max(x, axis=0)
    lse = x_max + tl.log(tl.sum(tl.exp(x - x_max), axis=0))
    target = tl.load(target_ptr + row)
    x_target = tl.load(row_ptr + target).to(tl.float32)
    tl.store(loss_ptr + row, lse - x_target)


def cross_entropy(logits: torch.Tensor, target: torch.Tensor):
    n_rows, n_classes = logits.shape
    loss = torch.empty(n_rows, device=logits.device, dtype=torch.float32)
    cross_entropy_kernel[(n_rows, )](logits, target, loss, n_classes, logits.stride(0),
                                     BLOCK_SIZE=triton.next_power_of_2(n_classes))
    return loss


if __name__ == "__main__":
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    logits = torch.randn(40, 1000, device=device) * 4
    target = torch.randint(0, 1000, (40, ), device=device, dtype=torch.int64)
    expected = torch.nn.functional.cross_entropy(logits, target, reduction='none')
    result = cross_entropy(logits, target)
    print(f"max abs diff: {torch.max(torch.abs(expected - result))}")
    assert torch.allclose(result, expected, rtol=1e-5, atol=1e-5)
