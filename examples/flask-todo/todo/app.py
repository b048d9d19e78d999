"""The to-do list: every row as JSON, and a POST that adds one.  The database is the SQLite file named by
TODO_DB (default todo.sqlite3 in the working directory); `todo.perf:reset` creates and seeds it."""
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
