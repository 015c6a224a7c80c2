"""``check`` run inside the store's owner (the workbench, ``serve``): when
it hits a bug, the traceback reaches the client on the reply's stderr with
exit 2; it was printed on the owner's own stderr, over the workbench's
screen, and the client got exit 2 with nothing to read."""

from __future__ import annotations

from brainwork.cli.served import run_request
from brainwork.config import load_config
from brainwork.service.handle import StoreHandle
from brainwork.service.owner import Request


def test_a_bug_in_a_served_check_reaches_the_client(make_vault, tmp_path, monkeypatch, capfd) -> None:
    vault = make_vault({"A.md": "# A\nalpha [[B]]\n", "B.md": "# B\nbeta [[A]]\n"})
    config = load_config(vault, tmp_path / "store")
    handle = StoreHandle(config)
    handle.open()
    try:
        import brainwork.analysis.findings as findings

        def broken(*args, **kwargs):
            raise RuntimeError("a bug in the quality bar")

        monkeypatch.setattr(findings, "check", broken)
        reply = run_request(config, handle, Request(argv=["check"]))
    finally:
        handle.close()
    assert reply.exit_code == 2
    assert "Traceback" in reply.stderr and "RuntimeError: a bug in the quality bar" in reply.stderr
    out, err = capfd.readouterr()
    assert "a bug in the quality bar" not in out + err  # nothing on the owner's own terminal
