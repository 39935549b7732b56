"""Author mode's screens: campaign check findings, validation of finished runs, reports."""
