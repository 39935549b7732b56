"""Double-entry book, hash-chained command journal, seals, canonical JSON and SQLite store."""
