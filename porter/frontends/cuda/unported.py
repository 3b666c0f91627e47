"""Constructs with no TileLang equivalent, found before a kernel is converted (TP156).

A kernel that launches kernels, allocates on the device heap, calls through a function pointer
or keeps cuRAND state can never port, whatever else it does; the diagnostic must name that
construct, not the first parse error or unsupported type it happens to bring along (a device-side
`<<<...>>>` of a template kernel, a `rngState_t` the template copy cannot name, a `Container **`
that only exists to hold what `new` made). So the kernel and the device code it reaches are
scanned first, in two ways that do not depend on each other:

- tokens (what was written, parsed or not): `<<<`, `new`, `delete`, heap functions called,
  cuRAND names;
- the AST, where it exists: heap expressions, device launches, calls with no TileLang equivalent
  (calls.py's table), calls through function pointers, and declarations whose type has none
  (types.py's table: cuRAND states, texture references, grid and coalesced groups, function
  pointers).

The first finding, in source order of the kernel and then of each function it reaches, is the
kernel's diagnostic.
"""

from __future__ import annotations

from porter.diagnostics import TileportError
from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.units import cursor_tokens
from porter.frontends.cuda.types import FUNCTIONPROTO, kind_id, no_tilelang_equivalent_type

_HEAP = ("{what} in device code (the device heap) has no TileLang equivalent: TileLang has no device "
         "heap; allocate the memory on the host and pass it to the kernel as a buffer")
_LAUNCH = ("launching a kernel from device code (dynamic parallelism{name}) has no TileLang "
           "equivalent: launch it from the host")
_INDIRECT = ("a call through a function pointer ({what}) has no TileLang equivalent: TileLang calls "
             "only functions known when the kernel is compiled; pass an operation code and branch on it")
_CURAND = ("cuRAND device API '{name}' has no TileLang equivalent: TileLang has no cuRAND generators, "
           "and their state (curandState & co., a struct kept in memory between calls and kernels) "
           "has no TileLang buffer type")

_VIRTUAL = ("the virtual call '{name}' dispatches through the object's vtable (an object device code made, "
            "with new) and has no TileLang equivalent: TileLang has no objects, function pointers or "
            "device heap")

#: tokens whose mere presence in device code is a construct with no TileLang equivalent
_TOKENS = {
    "<<<": lambda prev: _LAUNCH.format(name=f", '{prev}<<<...>>>'" if prev else ""),
    "new": lambda prev: _HEAP.format(what="'new'"),
    "delete": lambda prev: _HEAP.format(what="'delete'"),
}
#: C library heap functions, when called (the token after them is '(')
_HEAP_CALLS = ("malloc", "free", "calloc", "realloc", "aligned_alloc")


def _heap_call(name: str) -> str:
    return _HEAP.format(what=f"'{name}'")


def first_unported(definitions, K, user_names=frozenset()) -> TileportError | None:
    """The first construct with no TileLang equivalent in `definitions` (a kernel's own, then the
    device code it reaches: cursors of function definitions), as a TP156 error, else None.
    user_names: the file's own functions (a user `free()` is not the C library's)."""
    for cursor in definitions:
        found = sorted(_token_findings(cursor, user_names) + _ast_findings(cursor, K, user_names),
                       key=lambda f: (f[2], f[0].line, f[0].col))
        if found:  # a device-side launch first: the device runtime calls around it serve it
            loc, message, _ = found[0]
            return TileportError("TP156", message, loc)
    return None


def _token_findings(cursor, user_names) -> list:
    out = []
    tokens = [t for t in cursor_tokens(cursor) if t.kind.name != "COMMENT"]
    for k, t in enumerate(tokens):
        text = t.spelling
        prev = tokens[k - 1].spelling if k else ""
        after = tokens[k + 1].spelling if k + 1 < len(tokens) else ""
        if text in _TOKENS and t.kind.name in ("PUNCTUATION", "KEYWORD"):
            if text == "delete" and prev == "=":
                continue  # `f() = delete;`: a deleted member function, no heap
            launched = _launched_name(tokens, k) if text == "<<<" else ""
            out.append((_token_loc(t), _TOKENS[text](launched), 0 if text == "<<<" else 1))
        elif t.kind.name == "IDENTIFIER" and text in _HEAP_CALLS and after == "(" and text not in user_names \
                and prev not in (".", "->", "::"):
            out.append((_token_loc(t), _heap_call(text), 1))
        elif t.kind.name == "IDENTIFIER" and text.startswith("curand") and text not in user_names:
            out.append((_token_loc(t), _CURAND.format(name=text), 1))
    return out


def _launched_name(tokens, at: int) -> str:
    """The kernel a `<<<` at tokens[at] launches: `k<<<`, `k<T, 128><<<` -> "k", else ""."""
    k, depth = at - 1, 0
    while k >= 0 and (depth or tokens[k].spelling == ">"):
        depth += {">": 1, "<": -1}.get(tokens[k].spelling, 0)
        k -= 1
    return tokens[k].spelling if k >= 0 and tokens[k].kind.name == "IDENTIFIER" else ""


def _token_loc(token):
    return ct.loc_of(token)


def _ast_findings(cursor, K, user_names) -> list:
    from porter.frontends.cuda.calls import _no_tilelang_equivalent

    out = []
    for c in cursor.walk_preorder():
        kind = c.kind
        if kind in (K.CXX_NEW_EXPR, K.CXX_DELETE_EXPR):
            what = "'new'" if kind == K.CXX_NEW_EXPR else "'delete'"
            out.append((ct.loc_of(c), _HEAP.format(what=what), 1))
        elif kind in (K.PARM_DECL, K.VAR_DECL, K.FIELD_DECL):
            why = declared_type_problem(c.type)
            if why is not None:
                out.append((ct.loc_of(c), f"'{c.spelling}': {why}", 1))
        elif kind == K.CALL_EXPR:
            callee = c.referenced
            name = c.spelling
            user = callee is not None and name in user_names
            if any(ch.kind == K.CALL_EXPR and ch.spelling == "__cudaPushCallConfiguration"
                   for ch in c.get_children()):
                launched = name or next((t.spelling for t in c.get_tokens()), "")  # a template's: unresolved
                out.append((ct.loc_of(c), _LAUNCH.format(name=f", '{launched}<<<...>>>'"), 0))
            elif name in _HEAP_CALLS and not user:
                out.append((ct.loc_of(c), _heap_call(name), 1))
            elif name and not user and _no_tilelang_equivalent(name, c) is not None:
                out.append((ct.loc_of(c), _no_tilelang_equivalent(name, c), 1))
            elif callee is not None and callee.kind == K.CXX_METHOD and callee.is_virtual_method() and \
                    _dispatched(c, K):
                out.append((ct.loc_of(c), _VIRTUAL.format(name=name), 1))
            else:
                indirect = _indirect_callee(c, K)
                if indirect is not None:
                    out.append((ct.loc_of(c), _INDIRECT.format(what=indirect), 1))
    return out


def _pointee_chain(ctype):
    """The type under its pointers, references and arrays."""
    for _ in range(8):
        canonical = ctype.get_canonical()
        if kind_id(ctype) in (101, 103, 104):  # pointer, lvalue and rvalue reference
            # as spelled (`curandState`), when not behind a typedef; `_kind_id` (0: invalid) is
            # read directly, since the bindings' `kind` raises on types they do not list (half)
            written = ctype.get_pointee()
            ctype = written if written._kind_id != 0 else canonical.get_pointee()
        elif kind_id(ctype) in (112, 114):  # constant and incomplete arrays
            written = ctype.get_array_element_type()  # invalid for a typedef of an array
            ctype = written if written._kind_id != 0 else canonical.get_array_element_type()
        else:
            return ctype
    return ctype


def declared_type_problem(ctype) -> str | None:
    """Why a declared type has no TileLang equivalent (through pointers and arrays), else None."""
    inner = _pointee_chain(ctype)
    if kind_id(inner) == FUNCTIONPROTO:
        return (f"a function pointer ('{ctype.spelling}') has no TileLang equivalent: TileLang calls only "
                "functions known when the kernel is compiled; pass an operation code and branch on it")
    return no_tilelang_equivalent_type(inner)


def _indirect_callee(call, K) -> str | None:
    """How a call reaches its function when that is through a pointer (`(*fp)(x)`, `table[i](x)`,
    `s.op(x)` of a pointer field), else None: direct calls, methods, lambdas and functors name
    their function, and a template's function parameter is a constant (calls.py inlines it)."""
    if call.referenced is not None and call.referenced.kind in (
            K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE, K.CONSTRUCTOR, K.CONVERSION_FUNCTION):
        return None
    node = next(iter(call.get_children()), None)
    for _ in range(8):
        if node is None:
            return None
        if node.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR) or \
                (node.kind == K.UNARY_OPERATOR and ct.unary_operator(node) == "*"):
            node = next(iter(node.get_children()), None)
            continue
        break
    if node is None or node.kind == K.MEMBER_REF_EXPR and kind_id(node.type) != 101:
        return None
    ref = node.referenced if node.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR) else None
    if ref is not None and ref.kind in (K.FUNCTION_DECL, K.TEMPLATE_NON_TYPE_PARAMETER, K.FUNCTION_TEMPLATE):
        return None
    if kind_id(_pointee_chain(node.type)) != FUNCTIONPROTO:
        return None
    if ref is not None and ref.kind == K.VAR_DECL and _constant_function(ref, K):
        return None
    return f"'{ref.spelling}'" if ref is not None else "a pointer read from memory"


def _constant_function(var, K) -> bool:
    """A `constexpr` pointer to a named function (a template argument made a constant)."""
    return any(t.spelling == "constexpr" for t in var.get_tokens()) and any(
        n.kind == K.DECL_REF_EXPR and n.referenced is not None and n.referenced.kind == K.FUNCTION_DECL
        for n in var.walk_preorder())


def _dispatched(call, K) -> bool:
    """Whether a virtual method's call goes through the vtable: not `Base::f()` (qualified)."""
    member = next(iter(call.get_children()), None)
    return member is not None and member.kind == K.MEMBER_REF_EXPR and \
        not any(t.spelling == "::" for t in member.get_tokens())
