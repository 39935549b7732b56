"""Process exit codes shared by every command (documented in the README)."""

OK = 0
UNSCORED = 1
"""Some requested question is unsubmitted, unresolved or invalid, or there is none at all."""
USAGE = 2
"""Bad input or usage: a wrong flag, a malformed campaign, script, submission or control file."""
INTEGRITY = 3
"""The factual run failed verification: broken journal chain, divergent re-execution, bad seal."""
