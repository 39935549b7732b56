"""Run directories: registration, files, bundle loading, commands, replay, verification."""
