"""The studio asks for a database password when the server wants one: reopening a project, File › Open database….

The test server needs no password, so a fake engine factory stands in for one that does: it connects to a SQLite
file only when given the password, and otherwise fails as libpq does ("fe_sendauth: no password supplied").
The prompt is answered programmatically; the password must reach the connection and nothing else.
"""
from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QInputDialog

pytest.importorskip("sqlalchemy")

from anonstudio.data.datasets import open_dataset
from anonstudio.data.io import database
from anonstudio.studio.project import Project

SECRET = "s3cret-Pa55"


@pytest.fixture
def guarded(tmp_path, monkeypatch) -> dict:
    """A SQLite URL behind a fake server that wants SECRET; ``tried`` lists the passwords it was given."""
    path = tmp_path / "clinic.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE people (id INTEGER, age INTEGER, city TEXT)")
    con.executemany("INSERT INTO people VALUES (?, ?, ?)", [(1, 30, "Paris"), (2, 41, "Lyon"), (3, 30, "Paris")])
    con.commit()
    con.close()
    tried: list = []
    real_engine = database._engine

    def engine(target, *, write=False):
        tried.append(target.url.password)
        real = real_engine(target, write=write)
        if target.url.password == SECRET:
            return real

        class Refusing:
            def connect(self):
                given = target.url.password
                raise RuntimeError("connection failed: FATAL: password authentication failed for user \"ana\""
                                   if given else "connection failed: fe_sendauth: no password supplied")

            def dispose(self):
                real.dispose()

        return Refusing()

    monkeypatch.setattr(database, "_engine", engine)
    return {"url": f"sqlite:///{path}", "tried": tried}


def _answer(answers: list[str | None], seen: list[str]) -> None:
    """Answer the next password prompts with ``answers`` (None: Cancel), noting each prompt's text."""

    def answer():
        dialog = next((w for w in QApplication.topLevelWidgets()
                       if isinstance(w, QInputDialog) and w.objectName() == "database-password" and w.isVisible()),
                      None)
        if dialog is None:
            QTimer.singleShot(20, answer)
            return
        seen.append(dialog.labelText())
        value = answers.pop(0)
        if value is None:
            dialog.reject()
        else:
            dialog.setTextValue(value)
            dialog.accept()
        if answers:
            QTimer.singleShot(20, answer)

    QTimer.singleShot(20, answer)


def test_auth_failure_is_told_apart(guarded):
    with pytest.raises(database.DatabaseError) as caught:
        open_dataset(guarded["url"], table="people")
    assert database.needs_password(caught.value) and "no password supplied" in str(caught.value)
    with pytest.raises(database.DatabaseError) as caught:
        open_dataset(guarded["url"], table="people", password="wrong-guess")
    assert database.needs_password(caught.value) and "wrong-guess" not in str(caught.value)
    assert not database.needs_password(database.DatabaseError("x", "no such table: people"))


def test_reopened_project_asks_for_the_password(window, wait_job, guarded, dialogs, qtbot, tmp_path):
    data = open_dataset(guarded["url"], table="people", password=SECRET)
    project = Project()
    key = project.add_dataset(data)
    project.save(tmp_path / "clinic.toml")
    saved = (tmp_path / "clinic.toml").read_text(encoding="utf-8")
    assert SECRET not in saved and "sqlite:///" in saved
    guarded["tried"].clear()
    seen: list[str] = []
    _answer(["wrong-guess", SECRET], seen)  # a refused password asks again
    job = window.projects._load(Project.load(tmp_path / "clinic.toml"), key, None)
    wait_job(job)
    qtbot.waitUntil(lambda: window.projects.last_job is not job and len(seen) == 2, timeout=10000)
    qtbot.waitUntil(lambda: window.projects.last_job.state.finished, timeout=20000)
    assert guarded["tried"] == [None, "wrong-guess", SECRET]
    assert "asks for a password" in seen[0] and "not accepted" in seen[1]
    assert all(SECRET not in text and "wrong-guess" not in text for text in seen)
    shown = window.datasets.dataset
    assert shown is not None and shown.frame["city"].tolist() == ["Paris", "Lyon", "Paris"]
    assert dialogs == []  # no error shown: the prompt fixed it


def test_reopen_prompt_cancelled_shows_the_error(window, wait_job, guarded, dialogs, qtbot, tmp_path):
    data = open_dataset(guarded["url"], table="people", password=SECRET)
    project = Project()
    key = project.add_dataset(data)
    seen: list[str] = []
    _answer([None], seen)
    wait_job(window.projects._load(project, key, None))
    qtbot.waitUntil(lambda: len(dialogs) == 1, timeout=10000)
    assert dialogs[0][1] == "Cannot open the project's dataset" and "no password supplied" in dialogs[0][2]
    assert SECRET not in dialogs[0][2]


def test_open_database_dialog_asks_for_the_password(window, guarded, qtbot):
    dialog = window.datasets.open_database_dialog(guarded["url"])
    seen: list[str] = []
    _answer([SECRET], seen)
    dialog.list_tables()
    qtbot.waitUntil(lambda: dialog.tables.count() == 1, timeout=20000)
    assert dialog.tables.item(0).text() == "people" and len(seen) == 1
    assert dialog.password_edit.text() == SECRET and dialog.source()["password"] == SECRET
    assert guarded["tried"][-1] == SECRET
    dialog.reject()
