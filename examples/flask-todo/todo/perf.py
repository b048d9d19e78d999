"""serverbench's reset (perf_app_reset = "todo.perf:reset"): the database back to its ten seeded rows."""
import os
import sqlite3

SEED = [(f"task {n}", n % 3 == 0) for n in range(1, 11)]


def reset() -> None:
    """Drop and re-create the to-do table with the seeded rows, before each cell."""
    connection = sqlite3.connect(os.environ.get("TODO_DB", "todo.sqlite3"), timeout=30)
    try:
        connection.execute("PRAGMA journal_mode=WAL")  # readers do not wait for the writing endpoint
        connection.executescript("DROP TABLE IF EXISTS todo;"
                                 "CREATE TABLE todo (id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL);")
        connection.executemany("INSERT INTO todo (title, done) VALUES (?, ?)", SEED)
        connection.commit()
    finally:
        connection.close()
