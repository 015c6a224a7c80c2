"""The frontmatter value checks: a type that YAML reads as a number (``untyped``),
a date that is no date and a value outside the vocabulary (``invalid-field``),
on small vaults through a real store and through the ``brainwork check``
command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from brainwork.vocabulary import PAGE_TYPES, TASK_OUTCOMES

PROSE = (
    "This page holds enough ordinary prose that nobody would call it a stub: it explains what the "
    "thing is, why it matters and where to look next. See [[other]]."
)
OTHER = "---\ntitle: Other\ntype: topic\n---\n" + PROSE.replace("[[other]]", "[[num]]") + "\n"


def lines_of(findings, code):
    return [(f.path, f.line, f.message) for f in findings if f.code == code]


def test_a_number_as_type_is_untyped_and_said_to_be_a_number(make_vault, run_check):
    vault = make_vault({"num.md": f"---\ntitle: Num\ntype: 123\n---\n{PROSE}\n", "other.md": OTHER,
                        "flag.md": f"---\ntitle: Flag\ntype: yes\n---\n{PROSE}\n"})
    found = {f.path: f for f in run_check(vault, ["untyped"])}
    assert set(found) == {"num.md", "flag.md"}
    num = found["num.md"]
    assert num.line == 3
    assert num.message.startswith("type 123 is a number, not one of the vault's types (")
    assert all(t in num.message for t in PAGE_TYPES)
    assert num.evidence["type"] == "123"
    assert found["flag.md"].message.startswith("type yes is a boolean, not one of the vault's types")


def test_created_that_is_no_date_and_an_outcome_outside_the_vocabulary(make_vault, run_check):
    vault = make_vault({
        "bad-date.md": f"---\ntitle: Bad date\ntype: topic\ncreated: 2026-13-45\n---\n{PROSE}\n",
        "words.md": f"---\ntitle: Words\ntype: topic\nupdated: last week\n---\n{PROSE}\n",
        "task.md": f"---\ntitle: Task\ntype: task\noutcome: 7\n---\n{PROSE}\n",
        "ok.md": (f"---\ntitle: Fine\ntype: task\noutcome: partial\ncreated: 2026-02-28\n"
                  f"updated: 2026-07-29T14:30:00Z\n---\n{PROSE}\n"),
        "empty.md": f"---\ntitle: Empty\ntype: task\noutcome:\ncreated: ~\n---\n{PROSE}\n",
        # a field of another type's vocabulary is free text here
        "topic.md": f"---\ntitle: Topic\ntype: topic\noutcome: 7\n---\n{PROSE}\n",
        "other.md": OTHER,
    })
    found = {f.path: f for f in run_check(vault, ["invalid-field"])}
    assert set(found) == {"bad-date.md", "words.md", "task.md"}
    bad = found["bad-date.md"]
    assert bad.line == 4 and bad.target == "created"
    assert bad.message == ("created '2026-13-45' is not a date (month must be in 1..12); write a date YYYY-MM-DD "
                           "(e.g. 2026-07-29), or a date and time YYYY-MM-DDTHH:MM")
    assert found["words.md"].message.startswith("updated 'last week' is not a date; write a date YYYY-MM-DD")
    task = found["task.md"]
    assert task.line == 4
    assert task.message == f"outcome '7' is not one of the task outcome values ({', '.join(TASK_OUTCOMES)})"
    assert dict(task.evidence) == {"field": "outcome", "value": "7", "allowed": list(TASK_OUTCOMES),
                                   "expected": f"one of {', '.join(TASK_OUTCOMES)}"}


def test_check_command_names_file_and_line(make_vault, tmp_path):
    vault = make_vault({
        "b.md": f"---\ntype: topic\ntitle: Dup\ntitle: Dup2\ncreated: 2026-13-45\n---\n{PROSE}\n",
        "c.md": f"---\r\ntype: task\r\ntitle: T\r\noutcome: 7\r\n---\r\n{PROSE}\r\n",
        "other.md": OTHER,
    })
    cmd = [str(Path(sys.executable).with_name("brainwork")), "check", "--vault", str(vault),
           "--store", str(tmp_path / "s"), "--code", "invalid-field", "--format", "json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 1, out.stderr
    rows = json.loads(out.stdout)
    assert [(r["path"], r["line"], r["code"]) for r in rows] == [
        ("b.md", 5, "invalid-field"), ("c.md", 4, "invalid-field")]
