// SQLiteStore: see ../../README.md
