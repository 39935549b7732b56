"""Process exit codes shared by every command (documented in the README)."""

OK = 0
UNSCORED = 1
"""Some requested question is unsubmitted, unresolved, invalid or failed, a required conclusion
is not met, or there is no question at all."""
USAGE = 2
"""Bad input or usage: a wrong flag, a malformed campaign, script, submission or control file,
a wrong control file, an unfinished run given to `validate`, a command to a finished run, a run
made by another installation (numpy or engine version) whose seal vouches for its header,
standard output that cannot be written (a full disk, a failing device)."""
INTEGRITY = 3
"""The factual run failed verification: broken journal chain, divergent re-execution, bad seal
or seal signature, a command after `finish`, an altered run.json."""
INTERRUPTED = 130
"""Stopped by Ctrl+C (128 + SIGINT, the shell's convention): what a validation was writing
is removed; a run keeps its last durable state."""
TERMINATED = 143
"""Stopped by SIGTERM (128 + 15: `timeout`, a CI runner's cancel, `kill`): cleaned up as for
Ctrl+C."""
OUTPUT_CLOSED = 141
"""Standard output was closed before the command wrote all of it (`| head`): it stopped there,
quietly, as a tool SIGPIPE stops (128 + 13, what the shell reports for one)."""
