"""A to-do list over SQLite."""
