"""What a host expression is, as the evaluator knows it: a constant, a torch tensor of a dtype, a
scalar, a dtype, a tuple or dict, a function, an autotune config, a module, or unknown."""

from __future__ import annotations

from dataclasses import dataclass



# --------------------------------------------------------------------------- host values


@dataclass(frozen=True)
class Binding:
    scope: int  # id of the HostScope
    name: str
    index: int  # event index in that scope


@dataclass
class HConst:
    value: object


@dataclass
class HTensor:
    dtype: str | None = None
    like: Binding | None = None  # same dtype as the tensor bound there


@dataclass
class HScalar:
    kind: str  # "int" / "float"
    options: tuple = ()  # the constants it may be (`3 if causal else 1`), when all are known


@dataclass
class HDType:
    dtype: str | None
    like: Binding | None = None
    # with `like` and no dtype: the dtype is mapped from that tensor's (`tl.float32 if
    # x.dtype == torch.float32 else tl.bfloat16`): its entry in `mapping`, else `otherwise`,
    # else the tensor's own
    mapping: tuple = ()
    otherwise: str | None = None

    def of(self, tensor_dtype: str) -> str:
        """This dtype once the tensor it follows is known to be `tensor_dtype`."""
        return dict(self.mapping).get(tensor_dtype, self.otherwise or tensor_dtype)


@dataclass
class HTuple:
    items: tuple


@dataclass
class HDict:
    items: dict


@dataclass(frozen=True)
class DTypeKey:
    """A dtype as a dict key (`torch_to_triton_dtype = {torch.float16: tl.float16, ...}`)."""
    dtype: str


def _dtype_entry(table: HDict, key: HDType):
    """`table[x.dtype]`: the entry of a known dtype; for a dtype known only as "that of tensor
    x", x's dtype mapped through the table (torch's dtypes to Triton's: x's own)."""
    if key.dtype:
        return table.items.get(DTypeKey(key.dtype), UNKNOWN)
    if not key.mapping and table.items and all(isinstance(k, DTypeKey) and isinstance(v, HDType) and v.dtype
                                               for k, v in table.items.items()):
        return HDType(None, key.like, tuple((k.dtype, v.dtype) for k, v in table.items.items()))
    return UNKNOWN


@dataclass
class HFunc:
    node: object  # ast.Lambda / ast.FunctionDef
    scope: object  # HostScope of the function itself


@dataclass
class HConfig:
    kwargs: dict
    num_warps: object = None
    num_stages: object = None


@dataclass
class HModule:
    path: str


@dataclass
class HShape:
    pass


@dataclass
class HOneOf:
    """One of several values that callers or branches disagree on (evaluate.merge)."""

    options: list


@dataclass
class HUnknown:
    pass


UNKNOWN = HUnknown()

_TORCH_NEW = {"empty", "zeros", "ones", "randn", "rand", "full", "empty_strided", "linspace",
              "logspace", "normal", "eye"}
_TORCH_LIKE = {"empty_like", "zeros_like", "ones_like", "randn_like", "rand_like", "full_like"}
_TORCH_INT64 = {"randint", "randperm"}
_TENSOR_DTYPE_METHODS = {"half": "float16", "float": "float32", "double": "float64",
                         "bfloat16": "bfloat16", "int": "int32", "long": "int64", "bool": "bool",
                         "short": "int16", "char": "int8", "byte": "uint8"}
_TENSOR_INT_METHODS = {"numel", "size", "stride", "dim", "element_size", "nelement", "ndimension",
                       "storage_offset", "__len__"}
_TENSOR_SAME_METHODS = {"contiguous", "view", "reshape", "flatten", "t", "transpose", "permute",
                        "clone", "detach", "cuda", "cpu", "expand", "expand_as", "squeeze",
                        "unsqueeze", "narrow", "view_as", "reshape_as", "abs", "neg", "ravel",
                        "requires_grad_", "add", "mul", "sub", "div", "sigmoid", "exp", "relu",
                        "clamp", "pin_memory", "as_strided", "movedim", "select", "uniform_",
                        "normal_", "fill_", "zero_", "copy_", "mul_", "add_", "__getitem__"}


# methods that only torch tensors have: an unknown receiver of one of them is a tensor
_TENSOR_ONLY_METHODS = (set(_TENSOR_DTYPE_METHODS) | _TENSOR_INT_METHODS | {
    "contiguous", "view", "reshape", "flatten", "transpose", "permute", "clone", "detach",
    "cuda", "cpu", "expand", "squeeze", "unsqueeze", "to", "numel", "stride", "view_as",
    "is_contiguous", "data_ptr", "new_empty", "new_zeros"}) - {"int", "float", "bool", "__len__"}

# --------------------------------------------------------------------------- scopes
