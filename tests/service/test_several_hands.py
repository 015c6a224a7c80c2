"""Several hands on one vault: agents' commands while another process owns
the store — the workbench (run here with Pilot, in this process) or a
``brainwork serve`` daemon (a real subprocess) — and SIGKILLs at any moment.

Every agent command is a real ``brainwork`` subprocess.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brainwork.config import load_config
from brainwork.service import owner

BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]
CERT_TASK = "tasks/2026-09-09-renew-cert-edi-endpoint"


def _env() -> dict:
    env = dict(os.environ)
    env["BRAINWORK_STORE_WAIT"] = "0"  # a command that would wait for the store fails at once instead
    return env


def _run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([*BRAINWORK, *args], capture_output=True, text=True, timeout=timeout, env=_env())


async def _arun(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        *BRAINWORK, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=_env(),
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=300)
    return proc.returncode, out.decode(), err.decode()


def _captures(vault: Path, n: int, prefix: str) -> list[list[str]]:
    return [["--vault", str(vault), "capture", "task", "--request", f"{prefix} {i}", "--outcome", "success",
             "--used", "tools/certbot"] for i in range(n)]


def _task_files(vault: Path, prefix: str) -> list[Path]:
    slug = prefix.lower().replace(" ", "-")
    return sorted(p for p in (vault / "tasks").glob(f"*-{slug}-*.md"))


async def _until(predicate, seconds: float = 30.0, pilot=None) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        if pilot is not None:
            await pilot.pause(0.1)
        else:
            await asyncio.sleep(0.1)
    return predicate()


async def test_agents_work_while_the_workbench_is_open(embedded_vault_copy):
    from brainwork.cli.served import run_request
    from brainwork.tui.app import BrainworkApp

    vault = embedded_vault_copy
    config = load_config(vault)
    app = BrainworkApp(config, serve=run_request)
    async with app.run_test(size=(120, 40)) as pilot:
        assert await _until(lambda: app.owner is not None and app.indexed, 120, pilot)
        pages_before = app.counts.pages

        results = await asyncio.gather(*(_arun(*a) for a in _captures(vault, 20, "Parallel job")))
        assert [r[0] for r in results] == [0] * 20, [r[2] for r in results if r[0]]
        ids = sorted(r[1].strip() for r in results)
        assert len(set(ids)) == 20 and all(i.startswith("tasks/") for i in ids)

        code, out, err = await _arun("--vault", str(vault), "doctrine")
        assert code == 0, err
        assert "verify-full-cert-chain" in out

        code, out, err = await _arun("--vault", str(vault), "show", CERT_TASK, "--json")
        assert code == 0, err
        assert json.loads(out)["id"] == CERT_TASK

        for args in (["rules"], ["log"], ["stats", "--json"]):
            code, out, err = await _arun("--vault", str(vault), *args)
            assert code == 0, (args, err)

        code, out, err = await _arun("--vault", str(vault), "check", "--format", "json")
        assert code in (0, 1), err
        json.loads(out)

        code, out, err = await _arun("--vault", str(vault), "recall", "renew the partner endpoint certificate")
        assert code == 0, err
        assert "Renew" in out

        # the open workbench shows the agents' pages without ctrl+r
        assert await _until(lambda: app.counts and app.counts.pages == pages_before + 20, 30, pilot)
        # and each capture joined the undo log
        code, out, err = await _arun("--vault", str(vault), "log", "--json")
        logged = {op["details"].get("page") for op in json.loads(out) if op["kind"] == "capture"}
        assert set(ids) <= logged

        # a command that fails in the owner is one line and exit 2, and the owner keeps serving
        code, out, err = await _arun("--vault", str(vault), "show", "no such page at all")
        assert code == 2 and err.startswith("brainwork: error:") and len(err.strip().splitlines()) == 1
        code, out, err = await _arun("--vault", str(vault), "doctrine")
        assert code == 0, err
    # the workbench closed: its socket is gone, commands open the store themselves
    assert owner.status(config) is None
    out = _run("--vault", str(vault), "stats", "--json")
    assert out.returncode == 0, out.stderr


def test_agents_work_while_serve_runs_and_survive_its_sigkill(serving):
    vault, proc = serving
    config = load_config(vault)
    st = owner.status(config)
    assert st is not None and st.kind == "serve" and st.pid == proc.pid

    procs = [subprocess.Popen([*BRAINWORK, *a], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
             for a in _captures(vault, 20, "Served job")]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0] * 20, [e for _, e in outs]

    for args in (["doctrine"], ["rules"], ["log"], ["show", CERT_TASK], ["check", "--format", "json"],
                 ["recall", "renew the partner endpoint certificate"]):
        out = _run("--vault", str(vault), *args)
        assert out.returncode in (0, 1) if args[0] == "check" else out.returncode == 0, (args, out.stderr)

    proc.kill()  # SIGKILL: the socket file stays, nobody listens on it
    proc.wait(timeout=30)
    assert owner.status(config) is None
    out = _run("--vault", str(vault), "log", "--json")
    assert out.returncode == 0, out.stderr
    logged = [op["details"].get("page") for op in json.loads(out.stdout) if op["kind"] == "capture"]
    assert len(logged) == len(set(logged)) == 20  # nothing lost, nothing doubled
    assert len(_task_files(vault, "Served job")) == 20


def test_sigkilled_captures_lose_and_double_nothing(sample_vault_copy):
    """Kill captures at every moment of their run: each page is either there
    whole or not there, never twice, and the undo log matches the files."""
    vault = sample_vault_copy
    for i in range(24):
        p = subprocess.Popen([*BRAINWORK, "--vault", str(vault), "capture", "correction", "--task", CERT_TASK,
                              "--wrong", f"killed capture {i}", "--correct", f"correct {i}", "--why", f"why {i}"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
        time.sleep(0.01 * (i % 12) + 0.005)
        p.send_signal(signal.SIGKILL)
        p.wait()
        # the same record again, as a hook would after a crash
        again = _run("--vault", str(vault), "capture", "correction", "--task", CERT_TASK,
                     "--wrong", f"killed capture {i}", "--correct", f"correct {i}", "--why", f"why {i}")
        assert again.returncode == 0, again.stderr
    pages = sorted((vault / "corrections").glob("*-killed-capture-*.md"))
    assert len(pages) == 24  # exactly one page per record
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert text.startswith("---\n") and "status: open" in text and text.endswith("\n")
    out = _run("--vault", str(vault), "log", "--json")
    assert out.returncode == 0, out.stderr
    logged = [op["details"].get("page") for op in json.loads(out.stdout) if op["kind"] == "capture"]
    assert len(logged) == len(set(logged)) == 24


async def test_serve_hands_the_store_to_the_workbench_and_takes_it_back(serving):
    """The person opens the workbench while ``serve`` runs: serve lets go of
    the store, the workbench owns it, and serve owns it again once the
    workbench has closed."""
    from brainwork.cli.served import run_request
    from brainwork.tui.app import BrainworkApp

    vault, proc = serving
    config = load_config(vault)
    app = BrainworkApp(config, serve=run_request)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await _until(lambda: app.owner is not None and app.indexed, 120, pilot)
        assert app.store_error == ""
        st = owner.status(config)
        assert st is not None and st.kind == "workbench"
        code, out, err = await _arun("--vault", str(vault), "doctrine")
        assert code == 0, err
    assert proc.poll() is None  # serve waited, it did not stop
    deadline = time.monotonic() + 60
    while (st := owner.status(config)) is None or st.kind != "serve":
        assert time.monotonic() < deadline, "serve did not take the store back"
        time.sleep(0.2)
    out = _run("--vault", str(vault), "doctrine")
    assert out.returncode == 0, out.stderr
