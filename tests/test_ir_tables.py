"""The tables that walk and print the IR name every node type: a node type added to the IR
without its row would be walked as a leaf or printed as nothing."""

from __future__ import annotations

import typing

from porter.emit.tilelang import _STATEMENTS
from porter.ir import nodes, tiles
from porter.ir.walk import BODIES, EVALUATES, OPERANDS

EXPRESSIONS = set(typing.get_args(nodes.Expr)) | {tiles.TileLoad}
STATEMENTS = set(typing.get_args(nodes.Stmt)) | set(tiles.TILE_STMTS)


def test_every_expression_type_has_its_operands_listed():
    assert EXPRESSIONS - set(OPERANDS) == set()
    for kind, fields in OPERANDS.items():
        assert set(fields) <= {f.name for f in kind.__dataclass_fields__.values()}, kind


def test_every_statement_type_says_what_it_evaluates_and_what_it_holds():
    assert STATEMENTS - set(EVALUATES) == set()
    for kind, fields in {**EVALUATES, **BODIES}.items():
        assert set(fields) <= set(kind.__dataclass_fields__), kind
    # a statement with a list of statements in a field is walked into
    for kind in STATEMENTS:
        lists = {name for name, f in kind.__dataclass_fields__.items() if "list" in str(f.type) and name in
                 ("body", "then", "orelse")}
        assert lists == set(BODIES.get(kind, ())), kind


def test_the_emitter_prints_every_statement_type_but_return():
    # returns are removed by the front ends (porter/ir/returns.py); printing one is an error
    assert STATEMENTS - set(_STATEMENTS) == {nodes.Return}
