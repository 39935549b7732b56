"""The Textual dashboard: a thin view over the player session, evaluator and graders."""
