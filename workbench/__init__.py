"""Counterfactual Workbench: CLI, player session, offline evaluator and Textual UI."""

from graders.blas import pin_kernels

pin_kernels()

__version__ = "0.1.0"
