"""Author tools: campaign checks."""
