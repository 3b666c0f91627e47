"""Integer index expressions as polynomials over names, and back.

The matcher asks algebraic questions of index arithmetic ("is this `row * K + k` for some row
and k?", "does `t * 16 + k` cancel after renaming?"). Converting the IR's integer `+ - *` over
names and thread/block indices to a `Poly` answers them; anything else (division, loads, calls)
is not affine and stops the conversion with NotAffine.

A Poly is a sum of monomials with integer coefficients, always expanded, so two expressions are
equal exactly when their Polys are. It replaced sympy, whose import cost 0.4 s of every convert
that a tile rule looked at; `from_poly` orders terms as sympy's printer did (symbols before
products, then by name), so ports read as before.
"""

from __future__ import annotations

from porter.ir.nodes import BinOp, Builtin, Cast, Const, Var, is_float


class NotAffine(Exception):
    """The expression is not integer `+ - *` arithmetic over names."""


class Poly:
    """An expanded integer polynomial: {monomial: coefficient}, a monomial being a sorted tuple of
    (name, exponent); the constant term's monomial is ()."""

    __slots__ = ("_terms", "_hash")

    def __init__(self, terms: dict):
        self._terms = {m: c for m, c in terms.items() if c != 0}
        self._hash = None

    # ------------------------------------------------------------------ building

    @staticmethod
    def symbol(name: str) -> Poly:
        return Poly({((name, 1),): 1})

    @staticmethod
    def integer(value: int) -> Poly:
        return Poly({(): int(value)})

    @staticmethod
    def of(value) -> Poly:
        return value if isinstance(value, Poly) else Poly.integer(value)

    def __add__(self, other):
        other = Poly.of(other)
        out = dict(self._terms)
        for m, c in other._terms.items():
            out[m] = out.get(m, 0) + c
        return Poly(out)

    __radd__ = __add__

    def __neg__(self):
        return Poly({m: -c for m, c in self._terms.items()})

    def __sub__(self, other):
        return self + -Poly.of(other)

    def __rsub__(self, other):
        return Poly.of(other) - self

    def __mul__(self, other):
        other = Poly.of(other)
        out: dict = {}
        for m1, c1 in self._terms.items():
            for m2, c2 in other._terms.items():
                m = _times(m1, m2)
                out[m] = out.get(m, 0) + c1 * c2
        return Poly(out)

    __rmul__ = __mul__

    def __truediv__(self, divisor: int):
        """Exact division by an integer that divides every coefficient."""
        if any(c % divisor for c in self._terms.values()):
            raise ValueError(f"{self} is not a multiple of {divisor}")
        return Poly({m: c // divisor for m, c in self._terms.items()})

    # ------------------------------------------------------------------ asking

    @property
    def is_integer(self) -> bool:
        return all(m == () for m in self._terms)

    @property
    def is_symbol(self) -> bool:
        if len(self._terms) != 1:
            return False
        (m, c), = self._terms.items()
        return c == 1 and len(m) == 1 and m[0][1] == 1

    @property
    def name(self) -> str:
        if not self.is_symbol:
            raise ValueError(f"{self} is not a single name")
        return next(iter(self._terms))[0][0]

    def __int__(self) -> int:
        if not self.is_integer:
            raise TypeError(f"{self} is not a constant")
        return self._terms.get((), 0)

    def has(self, symbol: Poly) -> bool:
        name = symbol.name
        return any(n == name for m in self._terms for n, _ in m)

    @property
    def free_symbols(self) -> set:
        return {Poly.symbol(n) for m in self._terms for n, _ in m}

    def terms(self) -> list:
        """The summands, one Poly each (sympy's Add.make_args); [0] for zero."""
        if not self._terms:
            return [Poly.integer(0)]
        return [Poly({m: c}) for m, c in self._terms.items()]

    def split_coefficient(self) -> tuple:
        """A single term as (integer coefficient, the rest); (c, 1) for a constant."""
        if len(self._terms) > 1:
            raise ValueError(f"{self} has more than one term")
        if not self._terms:
            return 0, Poly.integer(1)
        (m, c), = self._terms.items()
        return c, Poly({m: 1})

    def coeff(self, symbol: Poly) -> Poly:
        """The coefficient of symbol**1: the terms holding it exactly once, divided by it."""
        name = symbol.name
        out = {}
        for m, c in self._terms.items():
            if (name, 1) in m:
                rest = tuple(f for f in m if f != (name, 1))
                out[rest] = out.get(rest, 0) + c
        return Poly(out)

    def subs(self, mapping: dict) -> Poly:
        """Every symbol of `mapping` replaced at once by its Poly."""
        by_name = {s.name: Poly.of(v) for s, v in mapping.items()}
        out = Poly.integer(0)
        for m, c in self._terms.items():
            term = Poly.integer(c)
            for n, e in m:
                factor = by_name.get(n, Poly({((n, 1),): 1}))
                for _ in range(e):
                    term = term * factor
            out = out + term
        return out

    # ------------------------------------------------------------------ identity

    def __eq__(self, other):
        if isinstance(other, int):
            other = Poly.integer(other)
        if not isinstance(other, Poly):
            return NotImplemented
        return self._terms == other._terms

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(int(self)) if self.is_integer else hash(frozenset(self._terms.items()))
        return self._hash

    def __repr__(self):
        if not self._terms:
            return "0"
        parts = []
        for m, c in sorted(self._terms.items(), key=lambda t: _term_key(*t)):
            names = "*".join(n if e == 1 else f"{n}**{e}" for n, e in m)
            parts.append(str(c) if not names else names if c == 1 else f"{c}*{names}")
        return " + ".join(parts)


def _times(m1: tuple, m2: tuple) -> tuple:
    exps = dict(m1)
    for n, e in m2:
        exps[n] = exps.get(n, 0) + e
    return tuple(sorted(exps.items()))


# sympy's default_sort_key, for the shapes a Poly's terms take: a name (or a power of one) sorts
# before a product, names compare as strings, then exponents, then coefficients.
def _number_key(n: int) -> tuple:
    return ((1, 0, "Number"), (0, ()), (), n)


def _factor_key(name: str, exp: int) -> tuple:
    return ((2, 0, "Symbol"), (1, (name,)), _number_key(exp), 1)


def _term_key(monomial: tuple, coeff: int) -> tuple:
    if not monomial:
        return (1,)  # the constant goes last
    if len(monomial) == 1:
        return (0,) + _factor_key(*monomial[0])[:3] + (coeff,)
    factors = tuple(sorted(_factor_key(n, e) for n, e in monomial))
    return (0, (3, 0, "Mul"), (len(factors), factors), _number_key(1), coeff)


_BUILTIN = {"thread_idx": "tid", "block_idx": "bid", "block_dim": "bdim", "grid_dim": "gdim"}


def builtin_symbol(kind: str, axis: int) -> Poly:
    return Poly.symbol(f"{_BUILTIN[kind]}_{'xyz'[axis]}")


def var_symbol(name: str) -> Poly:
    return Poly.symbol(name)


def symbol_names(*exprs) -> dict:
    """Symbol name -> IR for every name the expressions read (variables, launch builtins,
    constexprs by their name): what `from_poly` prints a Poly over them back with."""
    from porter.ir.walk import walk_expr

    names = {}
    for e in exprs:
        for n in walk_expr(e):
            if isinstance(n, Var):
                names[n.name] = n
            elif isinstance(n, Builtin) and n.kind in _BUILTIN:
                names[builtin_symbol(n.kind, n.axis).name] = n
            elif isinstance(n, Const) and n.name and isinstance(n.value, int) and not isinstance(n.value, bool):
                names[n.name] = n  # a constexpr prints by its name
    return names


def to_poly(e) -> Poly:
    """IR integer expression -> Poly (raises NotAffine)."""
    if isinstance(e, Const) and not is_float(e.dtype) and e.dtype != "bool":
        return Poly.integer(int(e.value))
    if isinstance(e, Var) and not is_float(e.dtype):
        return var_symbol(e.name)
    if isinstance(e, Builtin):
        return builtin_symbol(e.kind, e.axis)
    if isinstance(e, Cast) and not is_float(e.dtype) and not is_float(e.a.dtype):
        return to_poly(e.a)
    if isinstance(e, BinOp) and e.op in ("+", "-", "*") and not is_float(e.dtype):
        a, b = to_poly(e.a), to_poly(e.b)
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    raise NotAffine(e)


def from_poly(s: Poly, names: dict, dtype: str = "int32"):
    """Poly -> IR; `names` maps symbol names to IR expressions (KeyError for one it lacks).

    Terms in sympy's order, the first positive one first (`last - back`, not `0 - back +
    last`); a negative term is subtracted; coefficients follow the product (`x * 4`), and a
    lone coefficient of -1 is `0 - x`."""
    s = Poly.of(s)
    items = sorted(s._terms.items(), key=lambda t: _term_key(*t))
    if not items:
        return Const(0, dtype)
    first = next((k for k, (_, c) in enumerate(items) if c > 0), 0)
    items = [items[first]] + items[:first] + items[first + 1:]
    out = _term_ir(*items[0], names, dtype)
    for m, c in items[1:]:
        if c < 0:
            out = BinOp("-", out, _term_ir(m, -c, names, dtype), dtype)
        else:
            out = BinOp("+", out, _term_ir(m, c, names, dtype), dtype)
    return out


def _term_ir(monomial: tuple, coeff: int, names: dict, dtype: str):
    if not monomial:
        return Const(int(coeff), dtype)
    factors = sorted(monomial, key=lambda f: _factor_key(*f))
    out = None
    for n, e in factors:
        base = names[n]
        for _ in range(e):
            out = base if out is None else BinOp("*", out, base, dtype)
    if coeff == 1:
        return out
    if coeff == -1:
        return BinOp("-", Const(0, dtype), out, dtype)
    return BinOp("*", out, Const(int(coeff), dtype), dtype)


def affine_in(expr: Poly, symbols: list):
    """expr = sum(coeff[s] * s) + rest, with coefficients and rest free of `symbols`; None when
    expr is not linear in them."""
    coeffs = {}
    rest = expr
    for s in symbols:
        c = expr.coeff(s)
        if any(c.has(t) for t in symbols):
            return None
        coeffs[s] = c
        rest = rest - c * s
    if any(rest.has(s) for s in symbols):
        return None
    return coeffs, rest
