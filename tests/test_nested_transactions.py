"""The embedded stores' transactions (`NestedTransactions`) on a real SQLite database: a COMMIT
that fails is rolled back, so the connection takes the next write."""

import sqlite3
import threading

import pytest

from ebbtide.store.base import NestedTransactions


def test_a_commit_that_fails_and_leaves_its_transaction_open_is_rolled_back(tmp_path):
    # A deferred foreign key is checked at COMMIT, and SQLite then keeps the transaction open.
    db = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    db.executescript(
        "PRAGMA foreign_keys = ON;"
        "CREATE TABLE parent (id INTEGER PRIMARY KEY);"
        "CREATE TABLE child (parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);"
    )
    tx = NestedTransactions(threading.RLock())

    def transaction():
        return tx(
            lambda: db.execute("BEGIN IMMEDIATE"),
            lambda: db.execute("COMMIT"),
            lambda: db.execute("ROLLBACK") if db.in_transaction else None,
        )

    with pytest.raises(sqlite3.IntegrityError), transaction():
        db.execute("INSERT INTO child VALUES (7)")
    assert not db.in_transaction
    with transaction():
        db.execute("INSERT INTO parent VALUES (7)")
        db.execute("INSERT INTO child VALUES (7)")
    assert db.execute("SELECT count(*) FROM child").fetchone() == (1,)
