"""The Store wrapper: parameter checking, transactions, schema, and another
process holding the database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from brainwork.errors import StoreBusy, UserError
from brainwork.store import Store
from brainwork.store.db import query_params
from brainwork.store.schema import EDGE_TABLES, SCHEMA_VERSION


def test_query_params_ignores_string_literals():
    assert query_params("MATCH (p:Page {id: $id}) WHERE p.title = '$notaparam' RETURN p") == {"id"}
    assert query_params('RETURN "$x", $y, $_z1') == {"y", "_z1"}


def test_unbound_or_extra_parameters_are_refused(store):
    store.execute("CREATE (:Meta {key: 'a', value: '1'})")
    store.execute("CREATE (:Meta {key: 'b', value: '2'})")
    with pytest.raises(ValueError, match="do not match"):
        store.execute("MATCH (m:Meta {key: $k}) DELETE m")  # would delete every row
    with pytest.raises(ValueError):
        store.rows("MATCH (m:Meta) RETURN m.key", {"extra": 1})
    with pytest.raises(ValueError):
        store.scalar("MATCH (m:Meta {key: $k}) RETURN m.value", {"key": "a"})
    assert store.scalar("MATCH (m:Meta) RETURN count(m)") == 3  # incl. schema_version


def test_schema_and_meta(store):
    assert store.meta("schema_version") == SCHEMA_VERSION
    assert store.meta("nothing") is None
    store.set_meta("k", "v")
    store.set_meta("k", "w")
    assert store.meta("k") == "w"
    tables = {r[0] for r in store.execute("CALL show_tables() RETURN name")}
    assert {"Page", "Missing", "ParseError", "Meta", *EDGE_TABLES} <= tables


def test_write_commits_or_rolls_back(store):
    with store.write():
        store.execute("CREATE (:Meta {key: 'x', value: '1'})")
    assert store.meta("x") == "1"
    with pytest.raises(RuntimeError):
        with store.write():
            store.execute("MATCH (m:Meta {key: 'x'}) SET m.value = '2'")
            store.execute("CREATE (:Meta {key: 'x', value: 'dup'})")  # duplicate key
    assert store.meta("x") == "1"
    with pytest.raises(KeyError):
        with store.write():
            store.execute("MATCH (m:Meta {key: 'x'}) SET m.value = '3'")
            raise KeyError("not a database error")
    assert store.meta("x") == "1"
    with store.write():  # still usable
        store.set_meta("x", "4")
    assert store.meta("x") == "4"


def test_copy_all_or_nothing(store):
    store.copy("Missing", pa.table({"id": pa.array([], pa.string())}))  # empty is a no-op
    with pytest.raises(RuntimeError):
        with store.write():
            store.copy("Missing", pa.table({"id": ["a", "b"]}))
            store.copy("Missing", pa.table({"id": ["c", "a"]}))
    assert store.scalar("MATCH (m:Missing) RETURN count(m)") == 0


def test_reopen_keeps_data(tmp_path):
    with Store(tmp_path / "s") as s:
        s.set_meta("k", "v")
    with Store(tmp_path / "s") as s:
        assert s.meta("k") == "v"


def test_store_folder_that_cannot_be_created(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UserError, match="cannot create store folder"):
        Store(blocker / "store")


@pytest.fixture
def held_store(tmp_path, hold_store):
    """A store folder held open by another process until the test ends."""
    path = tmp_path / "held"
    hold_store(path)
    return path


def brainwork_cmd() -> list[str]:
    script = Path(sys.executable).with_name("brainwork")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from brainwork.cli import main; main()"]


def test_store_busy_in_process(held_store):
    with pytest.raises(StoreBusy) as exc:
        Store(held_store)
    assert "in use by another" in str(exc.value) and str(held_store) in str(exc.value)


def test_store_busy_on_the_command_line(held_store, make_vault):
    vault = make_vault({"a.md": "# A\n"})
    for args in (["index"], ["stats"], ["show", "a"]):
        out = subprocess.run(
            [*brainwork_cmd(), *args, "--vault", str(vault), "--store", str(held_store)],
            capture_output=True, text=True, timeout=60,
            env={**os.environ, "BRAINWORK_STORE_WAIT": "0.3"},  # commands wait for a busy store (cli/common)
        )
        assert out.returncode == 2, out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1, out.stderr
        assert lines[0].startswith("brainwork: error: the store ") and "in use by another brainwork process" in lines[0]
        assert "Traceback" not in out.stderr and out.stdout == ""
