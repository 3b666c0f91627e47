"""Variants printed as one body (porter/emit/variant_bodies.py): taking the branches of one
variant's condition gives back exactly that variant's body."""

from __future__ import annotations

import random

import pytest

from porter.emit.variant_bodies import merged_body


def taken(merged: list, values: dict) -> list:
    """The merged body as TileLang's parser takes it for `values` of the variant names: each
    branch on the variant names decided, every other statement kept, nested ones dedented."""
    out = []
    for clauses in _statements(merged):
        if _decided(clauses[0][0], values) is not None:
            for header, body in clauses:
                if header == "else:" or _decided(header, values):
                    out += taken(body, values)
                    break
            continue
        for header, body in clauses:
            out.append(header)
            out += ["    " + line for line in taken(body, values)]
    return out


def _decided(header: str, values: dict):
    """An `if`/`elif` test over the variant names alone, evaluated; None for any other line."""
    if not header.startswith(("if ", "elif ")):
        return None
    try:
        return bool(eval(header.split(" ", 1)[1][:-1], {}, dict(values)))  # noqa: S307 - the test's own text
    except NameError:
        return None


def _statements(lines: list) -> list:
    """Top-level statements as clauses [(header, body lines dedented)], elif/else joined."""
    out = []
    for line in lines:
        if line.startswith(" "):
            out[-1][-1][1].append(line[4:])
        elif line.startswith(("elif ", "else:")):
            out[-1].append((line, []))
        else:
            out.append([(line, [])])
    return out


def test_three_enum_variants_branch_where_they_differ():
    common = ["x = T.alloc_fragment((BLOCK,), T.float32)", "for i in T.Parallel(BLOCK):"]
    bodies = [common + ["    y[i] = x[i] * 2.0", "    z[i] = y[i]"],
              common + ["    y[i] = x[i] + 1.0", "    z[i] = y[i]"],
              common + ["    y[i] = x[i]", "    z[i] = y[i]"]]
    conditions = ['MODE == "a"', 'MODE == "b"', 'MODE == "c"']
    merged = merged_body(bodies, conditions)
    assert merged == common + ['    if MODE == "a":', "        y[i] = x[i] * 2.0",
                               '    elif MODE == "b":', "        y[i] = x[i] + 1.0",
                               "    else:", "        y[i] = x[i]", "    z[i] = y[i]"]
    for body, mode in zip(bodies, "abc"):
        assert taken(merged, {"MODE": mode}) == body


def test_a_flag_that_adds_statements_branches_only_around_them():
    plain = ["a = 1", "for i in T.serial(4):", "    b = a + i", "    if b < n:", "        y[b] = b", "c = 2"]
    extra = ["a = 1", "for i in T.serial(4):", "    b = a + i", "    if b < n:", "        y[b] = b",
             "        h[b] = b", "c = 2"]
    merged = merged_body([extra, plain], ["KEEP", "not KEEP"])
    assert merged.count("a = 1") == 1 and "            h[b] = b" in merged
    assert taken(merged, {"KEEP": True}) == extra
    assert taken(merged, {"KEEP": False}) == plain


def test_an_if_with_an_else_is_one_statement():
    with_else = ["if x < n:", "    y = 1", "else:", "    y = 2", "z = y"]
    other = ["if x < n:", "    y = 1", "else:", "    y = 3", "z = y"]
    merged = merged_body([with_else, other], ["F", "not F"])
    assert taken(merged, {"F": True}) == with_else
    assert taken(merged, {"F": False}) == other


def _random_body(rng: random.Random, depth: int = 0) -> list:
    lines = []
    for _ in range(rng.randint(1, 4)):
        pick = rng.random()
        if pick < 0.25 and depth < 2:
            lines.append(f"for i{depth} in T.serial({rng.randint(1, 3)}):")
            lines += ["    " + line for line in _random_body(rng, depth + 1)]
        elif pick < 0.35 and depth < 2:
            lines.append(f"if v{rng.randint(0, 2)} < n:")
            lines += ["    " + line for line in _random_body(rng, depth + 1)]
            if rng.random() < 0.5:
                lines.append("else:")
                lines += ["    " + line for line in _random_body(rng, depth + 1)]
        else:
            lines.append(f"v{rng.randint(0, 2)} = w[{rng.randint(0, 3)}]")
    return lines


@pytest.mark.parametrize("seed", range(60))
def test_each_variant_is_its_own_body_again(seed):
    rng = random.Random(seed)
    base = _random_body(rng)
    bodies = [base]
    for _ in range(rng.randint(1, 3)):  # variants: the base with a few lines changed
        body = list(base)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(body))
            if body[i].rstrip().endswith(":"):
                continue
            if rng.random() < 0.5:
                body[i] = body[i].replace("w[", "u[")
            else:  # a statement only this variant has, after a simple one
                pad = body[i][:len(body[i]) - len(body[i].lstrip(" "))]
                body.insert(i + 1, f"{pad}q = w[{rng.randint(5, 9)}]")
        bodies.append(body)
    conditions = [f"K == {i}" for i in range(len(bodies))]
    for values in (None, [{"K": i} for i in range(len(bodies))]):
        merged = merged_body(bodies, conditions, values)
        for i, body in enumerate(bodies):
            assert taken(merged, {"K": i}) == body


def _flags(values: dict) -> str:
    return " and ".join(n if v else f"not {n}" for n, v in values.items())


def test_branches_test_only_the_flags_that_tell_their_bodies_apart():
    """FlagGems' round_kernel: `if IS_FP32: ... elif IS_FP16: ... elif IS_BF16: ...`,
    converted for all eight values of the three flags, branches as the original does."""
    def body(fp32, fp16, bf16):
        cast = "T.float32" if fp32 else "T.float16" if fp16 else "T.bfloat16" if bf16 else None
        lines = ["x = T.alloc_fragment((B,), T.float32)"]
        lines += [f"out = T.alloc_fragment((B,), {cast})"] if cast else []
        lines += ["T.copy(x_ptr[b], x)"]
        lines += [f"out[i] = T.Cast({cast}, T.round(x[i]))", "T.copy(out, out_ptr[b])"] if cast \
            else ["T.copy(x, out_ptr[b])"]
        return lines

    values = [{"IS_FP32": a, "IS_FP16": b, "IS_BF16": c}
              for a in (True, False) for b in (True, False) for c in (True, False)]
    bodies = [body(*v.values()) for v in values]
    merged = merged_body(bodies, [_flags(v) for v in values], values)
    tests = [line.strip() for line in merged if line.strip().startswith(("if ", "elif ", "else"))]
    assert tests == ["if IS_FP32:", "elif IS_FP16:", "elif IS_BF16:"] * 2 + ["else:"]
    for v, b in zip(values, bodies):
        assert taken(merged, v) == b


def test_a_test_on_an_enum_names_its_values_together():
    values = [{"MODE": m, "BIAS": f} for m in ("sum", "mean", "max") for f in (True, False)]
    bodies = [["y = x + b" if v["BIAS"] else "y = x", f"z = {'max' if v['MODE'] == 'max' else 'add'}(y)"]
              for v in values]
    conditions = [f"MODE == {v['MODE']!r} and {_flags({'BIAS': v['BIAS']})}" for v in values]
    merged = merged_body(bodies, conditions, values)
    assert merged == ["if BIAS:", "    y = x + b", "else:", "    y = x",
                      "if MODE == 'max':", "    z = max(y)", "else:", "    z = add(y)"]
    for v, b in zip(values, bodies):
        assert taken(merged, v) == b


@pytest.mark.parametrize("seed", range(40))
def test_random_flag_variants_each_take_their_own_body(seed):
    rng = random.Random(1000 + seed)
    names = ["A", "B", "C"][:rng.randint(1, 3)]
    values = [dict(zip(names, bits)) for bits in
              __import__("itertools").product((True, False), repeat=len(names))]
    rng.shuffle(values)
    values = values[:rng.randint(2, len(values))]
    base = _random_body(rng)
    bodies = []
    for v in values:  # a body depends on some of the flags only
        body = list(base)
        for n in names:
            if v[n] and rng.random() < 0.7:
                body.append(f"q = w[{names.index(n)}]")
        bodies.append(body)
    merged = merged_body(bodies, [_flags(v) for v in values], values)
    for v, b in zip(values, bodies):
        assert taken(merged, v) == b


def test_variants_alike_on_the_tested_names_are_one():
    """Two forms with one condition (they differ in a generic constexpr only, FlagGems' isin)
    take one body."""
    bodies = [["y = x"], ["y = x + 1"], ["y = x"]]
    values = [{"F": True}, {"F": False}, {"F": True}]
    merged = merged_body(bodies, ["F", "not F", "F"], values)
    assert merged == ["if F:", "    y = x", "else:", "    y = x + 1"]
