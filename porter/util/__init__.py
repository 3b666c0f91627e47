"""Helpers every part of tileport shares, kept once and low in the house: nothing here imports
another part of porter (files.py: atomic writes; hashing.py: content digests; names.py: fresh
and reserved names; numbers.py: integer helpers)."""
