"""Counterfactual Workbench: CLI, player session, offline evaluator and Textual UI."""

__version__ = "0.1.0"
