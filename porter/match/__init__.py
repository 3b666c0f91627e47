"""Pattern rules that raise IR onto TileLang tile primitives (see issue: pattern matcher)."""
