"""Variants printed as one body (porter/emit/variant_bodies.py): taking the branches of one
variant's condition gives back exactly that variant's body."""

from __future__ import annotations

import random

import pytest

from porter.emit.variant_bodies import merged_body


def taken(merged: list, values: dict, conditions: list) -> list:
    """The merged body as TileLang's parser takes it for `values` of the variant names: each
    branch on variant conditions decided, every other statement kept, nested ones dedented."""
    out = []
    for clauses in _statements(merged):
        head = clauses[0][0]
        if _is_variant_test(head, conditions):
            for header, body in clauses:
                test = "True" if header == "else:" else header.split(" ", 1)[1][:-1]
                if eval(test, {}, dict(values)):  # noqa: S307 - the test's own text
                    out += taken(body, values, conditions)
                    break
            continue
        for header, body in clauses:
            out.append(header)
            out += ["    " + line for line in taken(body, values, conditions)]
    return out


def _is_variant_test(header: str, conditions: list) -> bool:
    test = header[3:-1] if header.startswith("if ") else ""
    return test in conditions or (test.startswith("not (") and test[5:-1] in conditions)


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
        assert taken(merged, {"MODE": mode}, conditions) == body


def test_a_flag_that_adds_statements_branches_only_around_them():
    plain = ["a = 1", "for i in T.serial(4):", "    b = a + i", "    if b < n:", "        y[b] = b", "c = 2"]
    extra = ["a = 1", "for i in T.serial(4):", "    b = a + i", "    if b < n:", "        y[b] = b",
             "        h[b] = b", "c = 2"]
    merged = merged_body([extra, plain], ["KEEP", "not KEEP"])
    assert merged.count("a = 1") == 1 and "            h[b] = b" in merged
    assert taken(merged, {"KEEP": True}, ["KEEP", "not KEEP"]) == extra
    assert taken(merged, {"KEEP": False}, ["KEEP", "not KEEP"]) == plain


def test_an_if_with_an_else_is_one_statement():
    with_else = ["if x < n:", "    y = 1", "else:", "    y = 2", "z = y"]
    other = ["if x < n:", "    y = 1", "else:", "    y = 3", "z = y"]
    merged = merged_body([with_else, other], ["F", "not F"])
    assert taken(merged, {"F": True}, ["F", "not F"]) == with_else
    assert taken(merged, {"F": False}, ["F", "not F"]) == other


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
    merged = merged_body(bodies, conditions)
    for i, body in enumerate(bodies):
        assert taken(merged, {"K": i}, conditions) == body
