"""IR package: node types (nodes), traversal (walk), printing (printer), analyses (extents)."""

from porter.ir.nodes import *  # noqa: F401,F403
from porter.ir.nodes import Expr, Stmt  # noqa: F401
