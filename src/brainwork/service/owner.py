"""The store's owner and the local socket through which others reach it.

Kùzu 0.11.3 lets one process open a database read-write and, while it does,
no other process can open it at all; so one process owns the store (the
workbench, else ``brainwork serve``) and listens on a Unix socket beside it
(:func:`socket_path`). Protocol: one connection per request, one JSON line
each way (:class:`Request`, :class:`Reply`), each request on its own thread
with the runner the owner was given. Safety: the socket is mode 0600 and, on
Linux, only the owner's own user is served (``SO_PEERCRED``); a dead owner's
socket refuses connections, which :func:`ask` reads as "no owner"; only the
holder of the Kùzu lock binds, so two live owners cannot exist.
Walkthrough: docs/architecture.md, "Several hands: who owns the store".
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import socketserver
import struct
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from brainwork.config import Config
from brainwork.errors import UserError

SOCKET_NAME = "owner.sock"
#: ``sun_path`` holds 108 bytes on Linux and 104 on macOS, NUL included.
MAX_SOCKET_PATH = 100
#: Longest request line read (an argv and maybe a JSON record on stdin).
MAX_REQUEST_BYTES = 8 << 20
#: Seconds a client waits to connect (the owner accepts in its own thread, so
#: a live owner answers the connect at once).
CONNECT_TIMEOUT = 2.0
#: Seconds a client waits for the answer: a served ``brainwork embed`` of a
#: large vault embeds every page before it answers (a served recall does
#: not: :mod:`brainwork.service.embedding`).
ANSWER_TIMEOUT = 900.0


class OwnerGone(UserError):
    """The owner accepted the request and stopped before it answered."""


@dataclass
class Request:
    """One command for the owner: ``argv`` as typed after ``brainwork``;
    ``stdin`` the text the command may read (None: no stdin); ``op`` is
    ``"run"`` for a command, ``"status"`` for :class:`OwnerStatus`,
    ``"yield"`` to ask a ``serve`` owner to let go of the store (the workbench
    opening the vault)."""

    argv: list[str] = field(default_factory=list)
    stdin: str | None = None
    op: str = "run"


@dataclass
class Reply:
    """The owner's answer: what the command wrote to stdout and stderr, and
    its exit code. ``changed`` is True when the command may have changed
    the vault or the store (the owner's own views refresh then)."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    changed: bool = False


@dataclass
class OwnerStatus:
    """Who owns the store: ``kind`` (``"workbench"`` or ``"serve"``), process
    id, vault and store folders."""

    kind: str
    pid: int
    vault: str
    store: str


def socket_path(config: Config) -> Path:
    """Where the owner of ``config.store`` listens: ``STORE/owner.sock``, or,
    when that path is too long for a Unix socket, a file named by a hash of
    the store path in a per-user folder under the system temp folder."""
    path = config.store / SOCKET_NAME
    if len(os.fsencode(str(path))) <= MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(os.fsencode(str(config.store))).hexdigest()[:20]
    return Path(tempfile.gettempdir()) / f"brainwork-{os.getuid()}" / f"{digest}.sock"


def _connect(path: Path) -> socket.socket | None:
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(CONNECT_TIMEOUT)
    try:
        sock.connect(str(path))
    except (FileNotFoundError, ConnectionRefusedError, socket.timeout, OSError):
        sock.close()
        return None
    return sock


def _exchange(sock: socket.socket, request: Request, timeout: float) -> dict:
    with sock:
        sock.settimeout(timeout)
        sock.sendall(json.dumps(asdict(request), ensure_ascii=False).encode("utf-8") + b"\n")
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        raise OwnerGone("the process that holds the store stopped before it answered; run the command again")
    return json.loads(raw)


def ask(config: Config, request: Request, timeout: float = ANSWER_TIMEOUT) -> Reply | None:
    """Send ``request`` to the owner of the store; None when no owner listens.

    Raises:
        OwnerGone: the owner took the request and died before answering
            (the request may or may not have run; the journal keeps the vault
            whole either way).
    """
    sock = _connect(socket_path(config))
    if sock is None:
        return None
    try:
        data = _exchange(sock, request, timeout)
    except (ConnectionResetError, BrokenPipeError, socket.timeout) as exc:
        raise OwnerGone(f"the process that holds the store stopped answering ({exc.__class__.__name__}); run the command again") from None
    return Reply(**{k: data[k] for k in ("stdout", "stderr", "exit_code", "changed") if k in data})


def status(config: Config) -> OwnerStatus | None:
    """The live owner of the store, or None."""
    sock = _connect(socket_path(config))
    if sock is None:
        return None
    try:
        data = _exchange(sock, Request(op="status"), CONNECT_TIMEOUT)
        return OwnerStatus(**data)
    except (OSError, ValueError, TypeError, OwnerGone):
        return None


def ask_to_yield(config: Config, timeout: float = 30.0) -> bool:
    """Ask the store's owner to let go of it and wait until it has (its
    socket gone). True when the store is free now; False when there is no
    owner that yields (the workbench does not) or it did not in time."""
    import time

    sock = _connect(socket_path(config))
    if sock is None:
        return False
    try:
        data = _exchange(sock, Request(op="yield"), CONNECT_TIMEOUT)
    except (OSError, ValueError, OwnerGone):
        return False
    if not data.get("yielding"):
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        probe = _connect(socket_path(config))
        if probe is None:
            return True
        probe.close()
        time.sleep(0.1)
    return False


def _peer_uid(sock: socket.socket) -> int | None:
    """The connecting process's user id (Linux ``SO_PEERCRED``), or None
    where the platform does not say."""
    opt = getattr(socket, "SO_PEERCRED", None)
    if opt is None:
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


class _Handler(socketserver.StreamRequestHandler):
    server: "_Server"

    def handle(self) -> None:
        uid = _peer_uid(self.connection)
        if uid is not None and uid != os.getuid():
            return  # another user: close without an answer
        line = self.rfile.readline(MAX_REQUEST_BYTES)
        if not line.strip():
            return  # a liveness probe: connected, sent nothing
        try:
            data = json.loads(line)
            request = Request(**data)
        except (ValueError, TypeError):
            reply = Reply(stderr="brainwork: error: malformed request to the store's owner\n", exit_code=2)
            try:
                self.wfile.write(json.dumps(asdict(reply)).encode("utf-8") + b"\n")
            except OSError:
                pass
            return
        owner = self.server.owner
        if request.op == "status":
            answer: dict = asdict(owner.status)
        elif request.op == "yield":
            answer = {"yielding": owner.on_yield is not None}
            self.wfile.write(json.dumps(answer).encode("utf-8") + b"\n")
            self.wfile.flush()
            if owner.on_yield is not None:
                owner.on_yield()
            return
        else:
            reply = owner.run(request)
            answer = asdict(reply)
            if owner.on_reply is not None:
                try:
                    owner.on_reply(request, reply)
                except Exception:  # a view refresh must not fail the request
                    pass
        try:
            self.wfile.write(json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up; the command itself has run


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = False
    owner: "OwnerServer"


class OwnerServer:
    """Serve requests for one store on its socket, each in its own thread.

    Args:
        config: the vault whose store this process holds open.
        run: runs one request in this process and returns its reply (the
            command line's runner; it must be thread-safe).
        kind: ``"workbench"`` or ``"serve"`` (for :func:`status`).
        on_reply: called after each request on the request's thread
            (e.g. the workbench refreshes its views when ``reply.changed``).
        on_yield: called when another process asks for the store
            (:func:`ask_to_yield`); None: this owner keeps it.
    """

    def __init__(self, config: Config, run: Callable[[Request], Reply], *, kind: str,
                 on_reply: Callable[[Request, Reply], None] | None = None,
                 on_yield: Callable[[], None] | None = None):
        self.config = config
        self.run = run
        self.on_reply = on_reply
        self.on_yield = on_yield
        self.path = socket_path(config)
        self.status = OwnerStatus(kind, os.getpid(), str(config.vault), str(config.store))
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._inode: int | None = None

    def start(self) -> None:
        """Bind the socket (replacing a stale one) and serve in a daemon thread.

        Call only while this process holds the store open.

        Raises:
            UserError: the socket cannot be created.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        live = _connect(self.path)
        if live is not None:
            live.close()
            raise UserError(f"another process already serves the store on {self.path}")
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        old_mask = os.umask(0o177)
        try:
            server = _Server(str(self.path), _Handler)
        except OSError as exc:
            raise UserError(f"cannot listen on {self.path}: {exc.strerror}") from None
        finally:
            os.umask(old_mask)
        server.owner = self
        self._inode = os.stat(self.path).st_ino
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="brainwork-owner", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop accepting requests and remove the socket (if it is still
        ours). Requests already running finish on their threads."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        try:
            if os.stat(self.path).st_ino == self._inode:
                self.path.unlink()
        except FileNotFoundError:
            pass


def describe(config: Config) -> str:
    """One line naming the live owner, for messages ("the workbench (pid
    123)"), or "another brainwork process"."""
    st = status(config)
    if st is None:
        return "another brainwork process"
    return f"{'the workbench' if st.kind == 'workbench' else 'brainwork serve'} (pid {st.pid})"

