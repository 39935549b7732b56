"""Deterministic business simulator: campaigns, keyed draws, actions, day engine, branching."""
