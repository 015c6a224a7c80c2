"""Claude Code hooks (brainwork.agents.hooks, brainwork hook ...): Claude
Code's JSON in and out, the 10,000-character cap, trivial prompts, the
compact source, a missing or busy vault, the stop hook's task record and
its update, proposed corrections, and `brainwork hook install`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from brainwork.agents import hooks
from brainwork.agents.transcript import parse_lines, pushes_back, read_transcript
from brainwork.config import load_config

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
BRAINWORK = str(Path(sys.executable).with_name("brainwork"))


def run_hook(event: str, payload, vault: Path | str | None, env_extra: dict | None = None, cwd=None):
    env = {k: v for k, v in os.environ.items() if k != "BRAINWORK_VAULT"}
    env.update(env_extra or {})
    args = [BRAINWORK, "hook", event] + (["--vault", str(vault)] if vault is not None else [])
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(args, input=text, capture_output=True, text=True, env=env, timeout=120, cwd=cwd)


def no_owner(argv):
    return None


def rule_page(i: int, evidence: int, activated: str, words: int = 40) -> str:
    links = "".join(f'  - "[[corrections/c{i}-{k}]]"\n' for k in range(evidence))
    return (f'---\ntitle: "Rule number {i}"\ntype: rule\nstatus: active\nactivated: {activated}\n'
            f'rule: "{" ".join(["Always check the thing carefully"] * (words // 5))} {i}"\n'
            f'why: "{" ".join(["Because it broke before"] * (words // 4))}"\n'
            + (f"promoted_from:\n{links}" if evidence else "") + "---\n\nBody.\n")


# -- output shapes ---------------------------------------------------------------
def test_session_start_prints_claude_codes_json(sample_vault_copy):
    r = run_hook("session-start", {"session_id": "s", "hook_event_name": "SessionStart", "source": "startup",
                                   "transcript_path": "/nowhere.jsonl", "cwd": "/tmp"}, sample_vault_copy)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) == {"hookSpecificOutput"}
    spec = out["hookSpecificOutput"]
    assert spec["hookEventName"] == "SessionStart"
    assert "rules/verify-full-cert-chain" in spec["additionalContext"]
    assert "rules/backup-and-dry-run-before-migration" in spec["additionalContext"]
    assert "left out" not in spec["additionalContext"]


def test_compact_source_reloads_the_doctrine(sample_vault_copy):
    config = load_config(sample_vault_copy)
    start = hooks.session_start(config, hooks.HookInput(source="startup"), no_owner)
    after = hooks.session_start(config, hooks.HookInput(source="compact"), no_owner)
    assert "re-loaded after compaction" in after.context
    for rid in ("rules/verify-full-cert-chain", "rules/backup-and-dry-run-before-migration"):
        assert rid in start.context and rid in after.context
    pre = hooks.pre_compact(config, hooks.HookInput(trigger="auto"), no_owner)
    assert pre.plain and "Keep the standing rules" in pre.render()
    assert "rules/verify-full-cert-chain" in pre.render()
    assert not pre.render().lstrip().startswith("{")  # plain text: Claude Code takes it as compaction instructions


def test_hook_input_tolerates_anything():
    assert hooks.HookInput.parse("").event is None
    assert hooks.HookInput.parse("not json").prompt is None
    assert hooks.HookInput.parse("[1, 2]").session_id is None
    h = hooks.HookInput.parse(json.dumps({"hook_event_name": "Stop", "stop_hook_active": True, "prompt": 3}))
    assert h.event == "Stop" and h.stop_hook_active and h.prompt is None


# -- the cap ------------------------------------------------------------------------
def test_context_never_exceeds_the_cap_and_says_what_was_left_out(make_vault):
    files = {f"rules/r{i:02d}.md": rule_page(i, evidence=i % 7, activated=f"2026-{1 + i % 12:02d}-{1 + i % 27:02d}", words=120)
             for i in range(60)}
    files["rules/r99.md"] = rule_page(99, evidence=12, activated="2025-01-01", words=20)  # most corrected, oldest
    vault = make_vault(files)
    config = load_config(vault)
    rules = hooks.active_rules(config, no_owner)
    assert len(rules) == 61
    full = sum(len(r.rule) + len(r.why) for r in rules)
    assert full > 20_000  # far over the cap
    for out in (hooks.session_start(config, hooks.HookInput(source="startup"), no_owner),
                hooks.session_start(config, hooks.HookInput(source="compact"), no_owner),
                hooks.pre_compact(config, hooks.HookInput(), no_owner),
                hooks.user_prompt_submit(config, hooks.HookInput(prompt="Rotate the database credentials"), no_owner)):
        text = out.render() if out.plain else out.context
        assert 0 < len(text) <= 10_000
        assert len(out.render()) <= 10_000 + 100  # the JSON wrapper and escapes around it
        last = text.rstrip().splitlines()[-1]
        assert "left out" in last and "`brainwork doctrine --budget N`" in last and "`brainwork rules --status active`" in last
        kept = text.count("(rules/r") if not out.plain and "**" in text else text.count("- rules/r")
        assert f"{61 - kept} more active rules left out" in last
        assert "rules/r99" in text  # the most corrected rule comes first
    # by priority: evidence, then newest
    ordered = hooks.by_priority(rules)
    assert ordered[0].id == "rules/r99"
    assert [r.evidence for r in ordered] == sorted((r.evidence for r in ordered), reverse=True)
    six = [r for r in ordered if r.evidence == 6]
    assert [r.activated for r in six] == sorted((r.activated for r in six), reverse=True)


def test_cap_over_the_owner_path_too(make_vault):
    """Rules as the owner's `doctrine --format json` gives them are cut the same way."""
    from brainwork.service.owner import Reply

    rules = [{"id": f"rules/x{i}", "title": f"X {i}", "rule": "Do the careful thing " * 30, "why": "it broke " * 40,
              "apply": "", "activated": "2026-01-01", "tokens": 500, "evidence": i} for i in range(42)]
    vault = make_vault({"a.md": "# a\n"})
    config = load_config(vault)
    out = hooks.session_start(config, hooks.HookInput(), lambda argv: Reply(stdout=json.dumps({"rules": rules})))
    assert len(out.context) <= 10_000
    assert "rules/x41" in out.context and "rules/x0)" not in out.context


# -- prompts --------------------------------------------------------------------
@pytest.mark.parametrize("prompt", ["ok", "OK!", "thanks", "Thank you!", "yes", "y", "continue", "go on", "yes, go ahead",
                                    "👍", "/compact keep the rules", "/clear", "", "   ", "lgtm, thanks"])
def test_trivial_prompts(prompt):
    assert hooks.is_trivial(prompt)


@pytest.mark.parametrize("prompt", ["fix it", "ok, now renew the certificate for api.acme.example", "why did the CI fail?",
                                    "continue with the migration but take a backup first", "no, use UTC"])
def test_prompts_that_ask_for_something(prompt):
    assert not hooks.is_trivial(prompt)


def test_trivial_prompt_is_silent(sample_vault_copy):
    r = run_hook("user-prompt-submit", {"hook_event_name": "UserPromptSubmit", "prompt": "thanks!", "session_id": "s"},
                 sample_vault_copy)
    assert r.returncode == 0 and r.stdout == ""


def test_prompt_gets_doctrine_and_recall(embedded_vault_copy):
    from brainwork.cli.served import call

    config = load_config(embedded_vault_copy)
    out = hooks.user_prompt_submit(config, hooks.HookInput(prompt="Renew the TLS certificate for the billing API"),
                                   hooks.owner_ask(config), call=lambda argv: call(config, argv))
    data = json.loads(out.render())
    text = data["hookSpecificOutput"]["additionalContext"]
    assert data["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "- rules/verify-full-cert-chain:" in text  # one line per rule
    assert "## Prior work that bears on this prompt" in text
    assert "tasks/2026-09-02-renew-cert-billing-api" in text
    assert len(text) <= 10_000


# -- failure never reaches the session -------------------------------------------------
@pytest.mark.parametrize("event", hooks.EVENTS)
def test_missing_vault_exit_0_and_nothing_on_stdout(event, tmp_path):
    payload = {"hook_event_name": "X", "prompt": "Renew the certificate", "transcript_path": str(FIXTURES / "01-cert-renewal.jsonl"),
               "session_id": "s"}
    for vault in (tmp_path / "absent", None):
        r = run_hook(event, payload, vault, cwd=tmp_path)
        assert r.returncode == 0 and r.stdout == "", (event, vault, r.stdout, r.stderr)
    # garbage on stdin
    r = run_hook(event, "\x00not json", tmp_path / "absent", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == ""


def test_busy_store_still_answers(sample_vault_copy):
    """Another process holds the store (a one-shot command): the doctrine
    comes from the rule pages, recall is skipped after a short wait."""
    from brainwork.index.sync import sync
    from brainwork.store import Store

    config = load_config(sample_vault_copy)
    store = Store(config.store)
    try:
        sync(config, store)
        r = run_hook("session-start", {"source": "startup"}, sample_vault_copy)
        assert r.returncode == 0 and "rules/verify-full-cert-chain" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
        r = run_hook("user-prompt-submit", {"prompt": "Renew the TLS certificate for the billing API"}, sample_vault_copy,
                     env_extra={"BRAINWORK_STORE_WAIT": "0.5"})
        assert r.returncode == 0
        text = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "rules/verify-full-cert-chain" in text and "Prior work" not in text
    finally:
        store.close()


# -- the stop hook ----------------------------------------------------------------------
def _stop(config, transcript: Path, sid: str = "sess-1"):
    return hooks.stop(config, hooks.HookInput(event="Stop", session_id=sid, transcript_path=str(transcript)))


def _session_pages(vault: Path, folder: str, sid: str = "sess-1") -> list[Path]:
    return sorted(p for p in (vault / folder).glob("*.md") if f'session: "{sid}"' in p.read_text())


def test_stop_writes_one_task_record_and_updates_it(sample_vault_copy, tmp_path):
    config = load_config(sample_vault_copy)
    transcript = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / "04-blog-post.jsonl", transcript)
    out = _stop(config, transcript)
    assert out is not None and "proposed correction" in out.system_message
    assert "hookSpecificOutput" not in json.loads(out.render())  # nothing that would resume the turn
    [task] = _session_pages(sample_vault_copy, "tasks")
    text = task.read_text()
    assert 'request: "Write a blog post about how we cut CI time in half"' in text
    assert "WebFetch (2)" in text and "Write (1)" in text and "Edit (2)" in text
    assert "https://grafana.acme.example/d/ci/ci-durations" in text
    assert "- posts/ci-time.md" in text
    [proposal] = _session_pages(sample_vault_copy, "corrections")
    ptext = proposal.read_text()
    assert "status: proposed" in ptext and "turn: 1" in ptext
    assert "I said no invented numbers" in ptext
    assert f'corrects: "[[tasks/{task.stem}]]"' in ptext

    # the session goes on: a new file written, another push-back
    more = [
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_x", "name": "Write", "input": {"file_path": "/home/sam/work/acme/posts/ci-time-2.md"}}]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "ok"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Wrote a second part."}]}},
        {"type": "user", "message": {"role": "user", "content": "you should have asked before splitting it into two posts"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Sorry."}]}},
    ]
    with open(transcript, "a") as fh:
        fh.write("".join(json.dumps(m) + "\n" for m in more))
    out2 = _stop(config, transcript)
    [task2] = _session_pages(sample_vault_copy, "tasks")
    assert task2 == task  # updated, not duplicated
    assert "- posts/ci-time-2.md" in task2.read_text() and "Write (2)" in task2.read_text()
    proposals = _session_pages(sample_vault_copy, "corrections")
    assert len(proposals) == 2 and "1 proposed correction" in out2.system_message
    # a third stop with nothing new changes nothing
    before = {p: p.read_bytes() for p in (sample_vault_copy / "tasks").glob("*.md")}
    assert _stop(config, transcript) is None
    assert before == {p: p.read_bytes() for p in (sample_vault_copy / "tasks").glob("*.md")}
    assert len(_session_pages(sample_vault_copy, "corrections")) == 2

    # the store's holder records the update for undo
    from brainwork.ops import changeset
    from brainwork.store import Store

    store = Store(config.store)
    try:
        changeset.recover(config, store)
        ops = changeset.history(store)
        assert any("session update" in op.summary for op in ops)
        assert sum(op.kind == "propose-correction" for op in ops) == 2
    finally:
        store.close()


def test_stop_never_clobbers_a_page_a_person_edited(sample_vault_copy, tmp_path):
    config = load_config(sample_vault_copy)
    transcript = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / "05-rename.jsonl", transcript)
    _stop(config, transcript)
    [task] = _session_pages(sample_vault_copy, "tasks")
    edited = task.read_text().replace("## Tools used", "A person's note.\n\n## Tools used")
    task.write_text(edited)
    with open(transcript, "a") as fh:
        fh.write(json.dumps({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "name": "Edit", "input": {"file_path": "/home/sam/work/acme/CHANGELOG.md"}}]}}) + "\n")
    result = hooks.capture_session(config, read_transcript(transcript), "sess-1")
    assert result.action == "kept"
    assert task.read_text() == edited
    assert len(_session_pages(sample_vault_copy, "tasks")) == 1


def test_proposed_corrections_wait_in_the_inbox_not_in_consolidation(sample_vault_copy, tmp_path):
    from brainwork.index.sync import sync
    from brainwork.learn.consolidate import UNRESOLVED
    from brainwork.learn.inbox import confirm_correction, dismiss_correction, inbox
    from brainwork.store import Store
    from brainwork.store import learning as q

    assert "proposed" not in UNRESOLVED
    config = load_config(sample_vault_copy)
    transcript = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / "10-backfill.jsonl", transcript)
    _stop(config, transcript)
    proposed = [p.stem for p in _session_pages(sample_vault_copy, "corrections")]
    assert len(proposed) == 2
    store = Store(config.store)
    try:
        sync(config, store)
        waiting = {i.id: i for i in inbox(store)}
        ids = [f"corrections/{s}" for s in proposed]
        assert all(waiting[i].status == "proposed" for i in ids)
        assert not {c["id"] for c in q.corrections(store, UNRESOLVED)} & set(ids)  # what consolidation reads
        with pytest.raises(Exception, match="missing: correct, why"):
            confirm_correction(config, store, ids[0], "Backfilled without a dry run", "", "")
        confirm_correction(config, store, ids[0], "Backfilled 18k rows without a dry run",
                           "Run the script with --dry-run first and show the count", "A wrong backfill is hard to undo")
        dismiss_correction(config, store, ids[1], "the revert was the fix, no lesson")
        sync(config, store)
        rows = {c["id"]: c for c in q.corrections(store)}
        assert rows[ids[0]]["status"] == "open" and rows[ids[0]]["fields"]["correct"].startswith("Run the script")
        assert rows[ids[0]]["title"] == "Backfilled 18k rows without a dry run"  # no longer "Proposed: ..."
        assert rows[ids[1]]["status"] == "dismissed"
        assert ids[0] in {c["id"] for c in q.corrections(store, UNRESOLVED)}
    finally:
        store.close()


# -- transcripts ------------------------------------------------------------------------
def test_transcript_parser_skips_what_is_not_the_persons_words():
    lines = [
        "not json", "[1]", json.dumps({"type": "summary", "summary": "x"}),
        json.dumps({"type": "user", "isMeta": True, "message": {"content": "Caveat: The messages below were generated"}}),
        json.dumps({"type": "user", "sessionId": "abc", "cwd": "/w", "message": {"content": "<system-reminder>r</system-reminder>Do the thing"}}),
        json.dumps({"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "WebFetch", "input": {"url": "https://x.example/a?token=1"}},
                                                                 {"type": "tool_use", "name": "Bash", "input": {"command": "curl -s https://y.example/b | jq ."}},
                                                                 {"type": "tool_use", "name": "MultiEdit", "input": {"file_path": "/w/src/a.py"}},
                                                                 {"type": "tool_use", "name": 7}, {"type": "weird"}]}}),
        json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "out"}]}]}}),
        json.dumps({"type": "user", "isSidechain": True, "message": {"content": "sub-agent prompt"}}),
        json.dumps({"type": "user", "message": {"content": "[Request interrupted by user for tool use]"}}),
        json.dumps({"type": "user", "message": {"content": "<command-name>/model</command-name>\n<command-args></command-args>"}}),
        json.dumps({"type": "user", "message": {"content": [{"type": "image", "source": {}}, {"type": "text", "text": "no, the other file"}]}}),
        json.dumps({"type": "user", "message": None}), '{"type": "assistant", "message": {"content": "tor',
    ]
    s = parse_lines(lines)
    assert s.session_id == "abc" and s.cwd == "/w"
    assert [t.text for t in s.turns] == ["Do the thing", "/model", "no, the other file"]
    assert s.turns[1].command == "/model" and s.request == "Do the thing"
    assert s.sources() == ["https://x.example/a?token=1", "https://y.example/b"]
    assert s.files_written() == ["src/a.py"] and s.tools_used() == ["WebFetch", "Bash", "MultiEdit"]
    assert s.bad_lines == 3
    assert not pushes_back(s.turns[0]) and not pushes_back(s.turns[1])  # the first prompt; a slash command
    assert pushes_back(s.turns[2])  # "no, ..." after the agent's work (a command in between)
    assert hooks._strip_query("https://x.example/a?token=1#f") == "https://x.example/a"


def pushback_scores(prefix: str) -> tuple[int, int, int]:
    labels = json.loads((FIXTURES / "labels.json").read_text())
    tp = fp = fn = 0
    for name, label in labels.items():
        if not name.startswith(prefix):
            continue
        s = read_transcript(FIXTURES / name)
        assert len(s.turns) == label["turns"], name
        for t in s.turns:
            said, truth = pushes_back(t), t.index in label["pushback"]
            tp += said and truth
            fp += said and not truth
            fn += truth and not said
    return tp, fp, fn


def test_pushback_precision_and_recall_on_the_labelled_sessions():
    """The rules-alone figures docs/learning-loop.md gives (what the stop
    hook does without the model): (true positives, false positives, missed)
    on the tuning sessions (01-13, h*), v2, and the held-out v3 and v4."""
    labels = json.loads((FIXTURES / "labels.json").read_text())
    assert (len(labels), sum(v["turns"] for v in labels.values()), sum(len(v["pushback"]) for v in labels.values())) == (42, 166, 50)
    tuned = [pushback_scores(f"{i:02d}-") for i in range(1, 14)] + [pushback_scores("h")]
    assert tuple(sum(x[k] for x in tuned) for k in range(3)) == (22, 0, 0)
    assert pushback_scores("v2-") == (8, 0, 0)
    assert pushback_scores("v3-") == (4, 1, 6)
    assert pushback_scores("v4-") == (7, 0, 3)


def test_pushback_figures_with_the_embedding_margin():
    """The same with the real sentence model's margin (benchmarks.bench_pushback)."""
    from benchmarks.bench_pushback import score
    from brainwork.learn.embed import get_embedder

    emb = get_embedder(None)
    assert not emb.lexical, emb.status
    got = {k: (r["tp"], r["fp"], r["fn"]) for k, r in score(emb.encode).items()}
    assert got == {"tuning": (22, 0, 0), "v2": (8, 0, 0), "v3": (5, 1, 5), "v4": (8, 0, 2)}


def _turns(*pairs):
    """A transcript from (person's words, agent reply, [(tool, input)]) triples."""
    lines = []
    for words, reply, tools in pairs:
        lines.append(json.dumps({"type": "user", "sessionId": "s", "cwd": "/w", "message": {"content": words}}))
        blocks = [{"type": "tool_use", "id": f"t{i}", "name": n, "input": inp} for i, (n, inp) in enumerate(tools)]
        blocks += [{"type": "text", "text": reply}] if reply else []
        if blocks:
            lines.append(json.dumps({"type": "assistant", "message": {"content": blocks}}))
    return parse_lines(lines)


def test_pushback_reads_the_turn_against_the_agents_action():
    from brainwork.agents.transcript import pushback_cues

    s = _turns(("Deploy the docs", "Uploaded to s3://docs-staging/.", [("Bash", {"command": "aws s3 sync site s3://docs-staging/"})]),
               ("That was the staging bucket, it belongs in docs-prod.", "", []))
    cues = pushback_cues(s.turns[1])
    assert cues.deictic and "staging" in cues.mentions and "docs-prod" in cues.new_values
    assert pushes_back(s.turns[1])
    # the same words before the agent did anything: the first prompt never pushes back
    assert not pushes_back(_turns(("That was the staging bucket, it belongs in docs-prod.", "", [])).turns[0])


@pytest.mark.parametrize("words, expected", [
    ("Put the config back the way it was.", True),                       # undo
    ("Leave config.yaml alone, the field is required.", True),           # undo of what it wrote
    ("Ugh. Still no header in the file. Third time now.", True),         # frustration
    ("Didn't we agree on the v2 endpoint?", True),                       # an objecting question
    ("We always pin exact versions here, not ranges.", True),            # a convention stated against it
    ("We always pin exact versions in this repo.", False),               # a convention alone: too weak for the rules
    ("sorry, typo on my side: I meant 25, not 20", False),               # the person's own typo
    ("great, thanks", False),
    ("Can you also add a test for it?", False),                          # a follow-up
    ("How long did that take?", False),                                  # a question
    ("No problem, take your time", False),                               # a reassurance
    ("Now look at the nightly job, it is slow", False),                  # a new task
])
def test_pushback_cues_on_small_transcripts(words, expected):
    s = _turns(("Set up the config", "Wrote config.yaml with version 1.2.", [("Write", {"file_path": "/w/config.yaml", "content": "v: 1.2"})]),
               (words, "", []))
    assert pushes_back(s.turns[1]) is expected, words


def test_embedding_margin_and_its_fallback():
    from brainwork.agents.transcript import embedding_margins, proposals
    from brainwork.learn.embed import get_embedder

    s = _turns(("Set up the config", "Wrote config.yaml.", [("Write", {"file_path": "/w/config.yaml"})]),
               ("That's not what I asked for at all.", "Sorry.", []), ("thanks, looks good", "", []))
    emb = get_embedder(None)
    margins = embedding_margins(s.turns[1:], emb.encode)
    assert margins[0] > 0 > margins[1]

    def broken(texts):
        raise RuntimeError("model gone")

    assert embedding_margins(s.turns[1:], broken) is None  # the rules decide
    assert [t.index for t in proposals(s, broken)] == [t.index for t in proposals(s)] == [1]
    assert proposals(s, emb.encode, skip={1}) == []


def test_stop_hook_encoder_without_an_onnx_export_leaves_it_to_the_rules(tmp_path, sample_vault_copy):
    import dataclasses

    config = dataclasses.replace(load_config(sample_vault_copy), store=tmp_path / "empty-store")  # no models/ export there
    encode = hooks.pushback_encoder(config)
    with pytest.raises(LookupError):
        encode(["x"])


# -- install ----------------------------------------------------------------------------
def test_install_shows_a_diff_merges_and_is_idempotent(tmp_path, sample_vault_copy):
    from brainwork.agents.claude_config import apply_install
    from brainwork.agents.hook_install import plan_hooks

    config = load_config(sample_vault_copy)
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    theirs = {"model": "opus", "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]}}
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps(theirs, indent=2) + "\n")
    plan = plan_hooks(config, "project", cwd=project)
    assert plan.changed
    diff = plan.diff()
    assert f"brainwork hook session-start --vault {config.vault}" in diff and "startup|resume|clear|compact" in diff
    assert diff.count("\n+") > 10 and "-    \"Stop\"" not in diff
    apply_install(plan)
    data = json.loads(settings.read_text())
    assert data["model"] == "opus" and data["hooks"]["PreToolUse"] == theirs["hooks"]["PreToolUse"]
    assert data["hooks"]["Stop"][0] == theirs["hooks"]["Stop"][0]
    assert data["hooks"]["Stop"][1] == {"hooks": [{"type": "command", "command": f"brainwork hook stop --vault {config.vault}"}]}
    assert data["hooks"]["SessionStart"] == [{"matcher": "startup|resume|clear|compact", "hooks": [
        {"type": "command", "command": f"brainwork hook session-start --vault {config.vault}"}]}]
    assert set(data["hooks"]) == {"Stop", "PreToolUse", "SessionStart", "UserPromptSubmit", "PreCompact"}
    again = plan_hooks(config, "project", cwd=project)
    assert not again.changed

    # the command: a second install changes nothing; user scope writes ~/.claude/settings.json
    env = {**{k: v for k, v in os.environ.items() if k != "BRAINWORK_VAULT"}, "HOME": str(tmp_path / "home")}
    for scope, path in (("project", settings), ("user", tmp_path / "home" / ".claude" / "settings.json")):
        first = subprocess.run([BRAINWORK, "hook", "install", "--scope", scope, "--yes", "--vault", str(sample_vault_copy)],
                               capture_output=True, text=True, cwd=project, env=env, timeout=60)
        assert first.returncode == 0, first.stderr
        snapshot = path.read_bytes()
        second = subprocess.run([BRAINWORK, "hook", "install", "--scope", scope, "--yes", "--vault", str(sample_vault_copy)],
                                capture_output=True, text=True, cwd=project, env=env, timeout=60)
        assert second.returncode == 0 and "already installed" in second.stdout
        assert path.read_bytes() == snapshot
    # without --yes and without a terminal: nothing written, one line, exit 2
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    r = subprocess.run([BRAINWORK, "hook", "install", "--vault", str(sample_vault_copy)], capture_output=True, text=True,
                       cwd=fresh, env=env, stdin=subprocess.DEVNULL, timeout=60)
    assert r.returncode == 2 and "--yes" in r.stderr and "+++" in r.stdout
    assert not (fresh / ".claude" / "settings.json").exists()


def test_install_replaces_an_older_brainwork_entry_in_place(tmp_path, sample_vault_copy):
    from brainwork.agents.hook_install import merge

    config = load_config(sample_vault_copy)
    old = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "brainwork hook stop --vault /old/vault"}]},
                              {"hooks": [{"type": "command", "command": "other"}]}]}}
    merged = merge(old, config)
    assert merged["hooks"]["Stop"][0]["hooks"][0]["command"] == f"brainwork hook stop --vault {config.vault}"
    assert merged["hooks"]["Stop"][1] == old["hooks"]["Stop"][1] and len(merged["hooks"]["Stop"]) == 2
    assert old["hooks"]["Stop"][0]["hooks"][0]["command"].endswith("/old/vault")  # input untouched


# -- a broken input: one line on stderr, nothing on stdout, exit 0 ----------------------
@pytest.mark.parametrize("event", [e for e in hooks.EVENTS if e not in hooks.ANSWER_ANYWAY])
@pytest.mark.parametrize("stdin", ["garbage{", "[1, 2]", ""])
def test_broken_stdin_says_one_line(event, stdin, sample_vault_copy):
    r = run_hook(event, stdin, sample_vault_copy)
    assert r.returncode == 0 and r.stdout == "", (event, stdin, r.stdout)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"brainwork hook {event}: "), r.stderr
    assert "stdin" in lines[0] and "nothing done" in lines[0]


@pytest.mark.parametrize("stdin", ["garbage{", "[1, 2]", ""])
def test_session_start_loads_the_doctrine_despite_a_broken_stdin(stdin, sample_vault_copy):
    """The doctrine depends on nothing in the input: the session still gets
    it, and the problem is one line on stderr."""
    r = run_hook("session-start", stdin, sample_vault_copy)
    assert r.returncode == 0, r.stderr
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "rules/verify-full-cert-chain" in context
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "stdin" in lines[0] and "answered as for an empty input" in lines[0]


def test_stop_with_an_unreadable_transcript_says_so(sample_vault_copy, tmp_path):
    r = run_hook("stop", {"session_id": "s", "transcript_path": str(tmp_path / "gone.jsonl")}, sample_vault_copy)
    assert r.returncode == 0 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "cannot read the transcript" in r.stderr


def test_stop_without_an_export_imports_no_embedding_stack(sample_vault_copy):
    """No ONNX export in the store: the push-back rules decide alone, so the
    stop hook must not import the embedding modules, the store or the link
    parser (~0.4 s CPU per stop)."""
    payload = json.dumps({"session_id": "imp-1", "transcript_path": str(FIXTURES / "01-cert-renewal.jsonl")})
    code = ("import sys; sys.argv = ['brainwork', 'hook', 'stop', '--vault', sys.argv[1]]\n"
            "from brainwork.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "bad = sorted(m for m in ('brainwork.learn.embed', 'brainwork.store', 'kuzu', 'markdown_it') if m in sys.modules)\n"
            "print('IMPORTED', ','.join(bad), file=sys.stderr)\n")
    env = {k: v for k, v in os.environ.items() if k != "BRAINWORK_VAULT"}
    r = subprocess.run([sys.executable, "-c", code, str(sample_vault_copy)], input=payload, capture_output=True,
                       text=True, env=env, timeout=120)
    assert "proposed correction" in r.stdout  # the transcript has a candidate turn: the encoder was asked
    assert "IMPORTED \n" in r.stderr, r.stderr
