"""`python -m workbench` runs the CLI."""

from workbench.cli import run

run()
