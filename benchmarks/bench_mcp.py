"""What an agent waits for from ``brainwork mcp``.

``python -m benchmarks.bench_mcp [--runs 5] [--owner none|serve|both]``

On a fresh copy of ``sample_vault/`` (indexed first), one ``brainwork mcp``
stdio server driven by the MCP SDK's client, as Claude Code drives it:

- **start-up**: process start to the answer of ``initialize`` (what a
  session waits for before the tools are listed);
- each tool call, as the client sees it: ``doctrine``, ``search``,
  ``read_page``, ``capture_task``, and ``recall`` after a first recall
  (reported apart: with no owner it loads the model in the server process). The vault is
  indexed, not embedded, and a recall embeds at most 32 pages itself
  (``service.embedding.INLINE_PAGES``; the sample vault has 129): with no
  owner neither recall embeds anything, both rank the tasks by their words
  and say "results for the rest by words"; with ``--owner serve`` the first
  one starts the owner's embedding pass and the later ones use the vectors
  written so far.

CPU = user + system seconds of the server process over the calls
(``/proc/PID/stat``), medians over ``--runs``. With ``--owner serve`` a
``brainwork serve`` holds the store, so the store work is done there and
the server's own CPU is only the protocol and the socket round trip.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

REPO = Path(__file__).resolve().parent.parent
BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]
TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _server_pid(vault: Path) -> int:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and b"mcp" in args and str(vault).encode() in args:
            return int(entry.name)
    raise RuntimeError("server process not found")


async def _measure(vault: Path, runs: int) -> dict[str, tuple[list[float], list[float]]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    results: dict[str, tuple[list[float], list[float]]] = {}
    params = StdioServerParameters(command=BRAINWORK[0], args=[*BRAINWORK[1:], "mcp", "--vault", str(vault)],
                                   env=dict(os.environ))
    with open(os.devnull, "w") as errlog:
        t0 = time.perf_counter()
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=900) as s:
                await s.initialize()
                start = time.perf_counter() - t0
                pid = _server_pid(vault)
                results["start-up (to initialize)"] = ([start], [_cpu(pid)])

                async def call(label: str, tool: str, args: dict, n: int) -> None:
                    walls, cpus = [], []
                    for i in range(n):
                        a = {k: (v.format(i=i) if isinstance(v, str) else v) for k, v in args.items()}
                        c0, w0 = _cpu(pid), time.perf_counter()
                        r = await s.call_tool(tool, a)
                        walls.append(time.perf_counter() - w0)
                        cpus.append(_cpu(pid) - c0)
                        assert not r.is_error, (tool, r.content)
                    results[label] = (walls, cpus)

                await call("doctrine", "doctrine", {}, runs)
                await call("search 'cert chain'", "search", {"query": "cert chain"}, runs)
                await call("read_page", "read_page", {"page": "tools/certbot"}, runs)
                await call("capture_task", "capture_task",
                           {"request": "Benchmark MCP capture {i}", "outcome": "success", "used": "tools/certbot"}, runs)
                await call("recall, first", "recall", {"task": "renew the partner endpoint certificate"}, 1)
                await call("recall, warm", "recall", {"task": "renew the partner endpoint certificate"}, runs)
    return results


def _fresh_vault() -> Path:
    root = Path(tempfile.mkdtemp(prefix="bench-mcp-"))
    shutil.copytree(REPO / "sample_vault", root / "vault", ignore=shutil.ignore_patterns(".brainwork"))
    vault = root / "vault"
    subprocess.run([*BRAINWORK, "--vault", str(vault), "index"], check=True, capture_output=True)
    return vault


def _serve(vault: Path) -> subprocess.Popen:
    from brainwork.config import load_config
    from brainwork.service import owner

    proc = subprocess.Popen([*BRAINWORK, "--vault", str(vault), "serve"], stderr=subprocess.DEVNULL)
    config = load_config(vault)
    deadline = time.monotonic() + 120
    while owner.status(config) is None:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("serve did not come up")
        time.sleep(0.1)
    return proc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--owner", choices=["none", "serve", "both"], default="both")
    args = parser.parse_args()
    owners = ["none", "serve"] if args.owner == "both" else [args.owner]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians of {args.runs}")
    for who in owners:
        vault = _fresh_vault()
        proc = _serve(vault) if who == "serve" else None
        try:
            results = anyio.run(_measure, vault, args.runs)
        finally:
            if proc is not None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=30)
            shutil.rmtree(vault.parent, ignore_errors=True)
        print(f"\nowner: {who}")
        print(f"{'call':28} {'wall s':>8} {'server CPU s':>13}")
        for label, (walls, cpus) in results.items():
            print(f"{label:28} {statistics.median(walls):8.3f} {statistics.median(cpus):13.3f}")


if __name__ == "__main__":
    main()
