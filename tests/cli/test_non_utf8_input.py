"""Text that is not UTF-8 (a byte such as 0xff on the command line, in a
``--json`` file or on stdin) is one line naming where it is, exit 2, and
nothing is written: no page, no half-written record."""

from __future__ import annotations

from click.testing import CliRunner

from brainwork.cli import cli

VAULT = {"tasks/renew.md": "---\ntitle: Renew TLS cert\ntype: task\n---\nRenewed.\n"}


def _run(*args: str, input: bytes | str | None = None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def _pages(vault) -> set[str]:
    return {p.relative_to(vault).as_posix() for p in vault.rglob("*.md")}


def test_a_command_line_byte_that_is_not_utf8_is_one_line(make_vault, tmp_path) -> None:
    vault = make_vault(VAULT)
    before = _pages(vault)
    # Python hands a 0xff byte of argv over as the lone surrogate U+DCFF.
    r = _run("capture", "correction", "--vault", str(vault), "--store", str(tmp_path / "s"),
             "--task", "tasks/renew", "--wrong", "bad \udcff arg", "--correct", "c", "--why", "w")
    assert r.exit_code == 2
    assert r.output.strip().count("\n") == 0
    assert "argument 10 is not UTF-8 text (byte 0xff at character 5)" in r.output
    assert "b'bad \\xff arg'" in r.output and "Traceback" not in r.output
    assert _pages(vault) == before
    r = _run("search", "--vault", str(vault), "--store", str(tmp_path / "s"), "caf\udce9")
    assert r.exit_code == 2 and "byte 0xe9 at character 4" in r.output


def test_a_json_record_that_is_not_utf8_names_its_line_and_column(make_vault, tmp_path) -> None:
    vault = make_vault(VAULT)
    before = _pages(vault)
    record = tmp_path / "record.json"
    record.write_bytes(b'{"task": "tasks/renew",\n "wrong": "\xff bad", "correct": "c", "why": "w"}\n')
    base = ["capture", "correction", "--vault", str(vault), "--store", str(tmp_path / "s")]
    r = _run(*base, "--json", str(record))
    assert r.exit_code == 2
    assert f"{record}:2:12: not UTF-8 (byte 0xff); nothing was written" in r.output
    r = _run(*base, "--json", "-", input=record.read_bytes())
    assert r.exit_code == 2 and "stdin:2:12: not UTF-8 (byte 0xff)" in r.output
    assert _pages(vault) == before
    # The same record in UTF-8 is written.
    record.write_bytes(record.read_bytes().replace(b"\xff", "\u00ff".encode()))
    r = _run(*base, "--json", str(record))
    assert r.exit_code == 0, r.output
    assert len(_pages(vault)) == len(before) + 1


def test_a_json_escape_of_a_lone_surrogate_is_one_line(make_vault, tmp_path) -> None:
    vault = make_vault(VAULT)
    before = _pages(vault)
    base = ["capture", "correction", "--vault", str(vault), "--store", str(tmp_path / "s"), "--json", "-"]
    r = _run(*base, input='{"task": "tasks/renew", "wrong": "half \\ud800 a pair", "correct": "c", "why": "w"}')
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "stdin: 'wrong' is not UTF-8 text (lone surrogate U+D800 at character 6, from a \\u escape)" in r.output
    assert _pages(vault) == before
    # a whole pair is one character, written as such
    r = _run(*base, input='{"task": "tasks/renew", "wrong": "smile \\ud83d\\ude00", "correct": "c", "why": "w"}')
    assert r.exit_code == 0, r.output
    assert any("\U0001f600" in p.read_text(encoding="utf-8") for p in vault.rglob("*.md"))
