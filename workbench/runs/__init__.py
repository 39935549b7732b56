"""Run directories: registration, files, bundle loading, command records, replay, verification."""
