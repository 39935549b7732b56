"""Hypothesis-driven fuzzing of the workbench CLI.

A quick profile runs in `make test`; `make fuzz` runs 10,000 cases and prints the counts.
"""
