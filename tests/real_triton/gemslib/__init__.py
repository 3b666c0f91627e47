"""A kernel library's package, written for tileport's tests: importing it would fail (it
expects a device), so tileport must read its modules without ever running them."""
from gemslib.runtime_probe import device  # noqa: F401  (no such module: never imported)

raise RuntimeError("gemslib's top level ran")
