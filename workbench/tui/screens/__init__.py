"""One screen per concern: dashboard, actions, questions, journal, ledger, panels, validate."""
