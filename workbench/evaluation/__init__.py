"""Offline evaluation: paired branches and the evaluator."""
