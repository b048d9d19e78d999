"""The to-do list: every row as JSON, and a POST that adds one.  The database is the SQLite file named by
TODO_DB (default todo.sqlite3 in the working directory): `flask --app todo.app init-db` creates it (it is not
in git), `todo.perf:reset` puts the seeded rows back."""
import os
import sqlite3

from flask import Flask, g, jsonify, request

app = Flask(__name__)


def db() -> sqlite3.Connection:
    if "db" not in g:
        g.db = sqlite3.connect(os.environ.get("TODO_DB", "todo.sqlite3"), timeout=30)
    return g.db


@app.teardown_appcontext
def close_db(exc):
    connection = g.pop("db", None)
    if connection is not None:
        connection.close()


SCHEMA = "CREATE TABLE IF NOT EXISTS todo (id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL)"


@app.cli.command("init-db")
def init_db():
    """Create the database and its table (kept when they exist)."""
    connection = sqlite3.connect(os.environ.get("TODO_DB", "todo.sqlite3"), timeout=30)
    try:
        connection.execute("PRAGMA journal_mode=WAL")  # readers do not wait for the writing endpoint
        connection.execute(SCHEMA)
        connection.commit()
    finally:
        connection.close()
    print("initialized the database")


@app.get("/todos")
def list_todos():
    rows = db().execute("SELECT id, title, done FROM todo ORDER BY id").fetchall()
    return jsonify(todos=[{"id": i, "title": title, "done": bool(done)} for i, title, done in rows])


@app.post("/todos")
def add_todo():
    data = request.get_json(silent=True)
    title = data.get("title") if isinstance(data, dict) else None
    if not isinstance(title, str) or not title:
        return jsonify(error='expected {"title": "..."}'), 400
    connection = db()
    cursor = connection.execute("INSERT INTO todo (title, done) VALUES (?, 0)", (title,))
    connection.commit()
    return jsonify(id=cursor.lastrowid, title=title, done=False), 201
