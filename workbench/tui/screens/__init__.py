"""One screen per concern: dashboard, actions, questions, journal, ledger and the graders."""
