"""serverbench's reset (perf_app_reset = "todo.perf:reset"): the to-do table back to its ten seeded rows.
The table itself is made by the app's init command (perf_app_setup = "flask --app todo.app init-db")."""
import os
import sqlite3

SEED = [(f"task {n}", n % 3 == 0) for n in range(1, 11)]


def reset() -> None:
    """Empty the to-do table and put the seeded rows back, before each cell."""
    connection = sqlite3.connect(os.environ.get("TODO_DB", "todo.sqlite3"), timeout=30)
    try:
        connection.execute("DELETE FROM todo")
        connection.executemany("INSERT INTO todo (title, done) VALUES (?, ?)", SEED)
        connection.commit()
    finally:
        connection.close()
