"""Benchmarks: one script per measurement; see bench/README.md."""
