"""Benchmarks for tileport's ports: `python bench/benchmark.py --help`."""
