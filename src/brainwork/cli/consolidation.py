"""Commands of the learning step (docs/learning-loop.md): ``consolidate``,
``rules``, ``replay``, ``approve``, ``reject``, ``retire``, ``link-evidence``,
``doctrine``.

Registered through :mod:`brainwork.cli.learn` (its ``COMMANDS``). Each is a
thin shell over :mod:`brainwork.learn`; the workbench calls the same
functions. Every change goes through the undo log: ``brainwork undo``
reverts the last approve / reject / consolidate / link-evidence.
"""

from __future__ import annotations

import click

from brainwork.cli.common import echo, echo_json, open_store, progress_bar, synced, vault_options
from brainwork.config import Config
from brainwork.errors import StoreBusy
from brainwork.wording import counted
from brainwork.vocabulary import RULE_STATUSES

UNDO_HINT = "undo with `brainwork undo`"
#: Seconds doctrine waits for a busy store before it reads the rule pages
#: from the vault instead: a session start must not wait for a long
#: operation (consolidation, a first index) in the store's owner.
DOCTRINE_STORE_WAIT = 0.2


def _synced(config: Config, store) -> None:
    synced(config, store)


@click.command("consolidate")
@click.option("--json", "as_json", is_flag=True, help="Print {clusters, candidates_created} as JSON.")
@click.option("--dry-run", is_flag=True, help="Show what would be proposed; write nothing.")
@vault_options
def consolidate_cmd(config: Config, as_json: bool, dry_run: bool) -> None:
    """Cluster unresolved corrections and draft candidate rules for the ones that recur.

    Nothing becomes doctrine here: candidates wait for `brainwork approve`.
    """
    from brainwork.learn.consolidate import consolidate

    with open_store(config) as store:
        _synced(config, store)
        with progress_bar("consolidating", not as_json) as progress:
            report = consolidate(config, store, dry_run=dry_run, progress=progress)
    if as_json:
        echo_json(report.to_json())
        return
    echo(
        f"read {counted(report.read, 'unresolved correction')} ({report.new} new since the last pass); "
        f"{counted(len(report.clusters), 'cluster')} proposed in {report.seconds:.1f} s"
    )
    for c in report.clusters:
        echo(f"  {counted(len(c.corrections), 'correction')}, {counted(len(c.tasks), 'task')}, "
             f"similarity {c.similarity:.2f}: {_cluster_outcome(c, dry_run)}")
    for s in report.suppressed:
        echo(f"  not proposed again (rejected before: {', '.join(s['rejected'])}): {counted(len(s['corrections']), 'correction')}")
    verb = "would create" if dry_run else "created"
    if dry_run:
        tail = "" if report.files else "; nothing would change"
    else:
        tail = f"; {UNDO_HINT}" if report.operation is not None else "; nothing changed"
    echo(f"{verb} {counted(report.candidates_created, 'candidate rule')}{tail}")


def _cluster_outcome(c, dry_run: bool) -> str:
    """What a pass did with cluster ``c`` (a :class:`brainwork.learn.consolidate.Cluster`),
    in the words of its consolidate line: "added" only when corrections
    joined the candidate's evidence."""
    if c.action == "existing":
        if not c.added:
            return f"already the evidence of candidate {c.candidate} (unchanged)"
        verb = "would add" if dry_run else "added"
        return f"{verb} {counted(len(c.added), 'correction')} to candidate {c.candidate}"
    if c.action == "evidence":
        return (f"evidence for active rule {c.rule}; link it with "
                f"`brainwork link-evidence {c.rule} {' '.join(c.corrections)}`")
    if c.action == "supersede":
        return f"candidate {c.candidate}, proposed to supersede {c.rule}"
    return f"new candidate {c.candidate}"


@click.command("rules")
@click.option("--status", type=click.Choice(list(RULE_STATUSES)), default=None, help="Only rules with this status.")
@click.option("--json", "as_json", is_flag=True, help="Print rules, replay figures and pruning suggestions as JSON.")
@vault_options
def rules_cmd(config: Config, status: str | None, as_json: bool) -> None:
    """List rules with their status, doctrine cost, repeat corrections before/after (replay) and pruning suggestions."""
    from brainwork.learn.replay import summary_line
    from brainwork.learn.rules import overview

    with open_store(config) as store:
        _synced(config, store)
        data = overview(config, store, status)
    if as_json:
        echo_json(data)
        return
    for r in data["rules"]:
        effect = f"  {summary_line(r['replay'])}" if r["replay"] and r["status"] == "active" else ""
        cost = f"  ~{r['doctrine_tokens']} tokens" if r["doctrine_tokens"] else ""
        echo(f"{(r['status'] or '-'):9} {r['id']}  {r['title']}{cost}{effect}")
        if r["status"] == "candidate":
            echo(f"          {counted(len(r['evidence']), 'correction')} as evidence"
                       + (f"; proposes to supersede {r['proposed_supersedes']}" if r["proposed_supersedes"] else ""))
    d = data["doctrine"]
    echo(f"doctrine: ~{d['tokens']} of {d['budget']} tokens" + (" (over budget)" if d["over_budget"] else ""))
    for s in data["pruning"]:
        echo(f"suggest {s['kind']}: {s['reason']}")


@click.command("replay")
@click.option("--json", "as_json", is_flag=True, help="Print the whole replay (repeats, lessons, task classes) as JSON.")
@vault_options
def replay_cmd(config: Config, as_json: bool) -> None:
    """Replay the vault's tasks in date order: were repeated lessons in the agent's context, and did
    each rule reduce repeat corrections on its kind of task?

    Read-only (loads the embedding model, unless nothing is dated). See docs/learning-loop.md, "Measuring improvement: replay".
    """
    from brainwork.learn.replay import replay, summary_line

    with open_store(config) as store:
        _synced(config, store)
        report = replay(config, store)
    if as_json:
        echo_json(report.to_json())
        return
    rate = report.in_room_rate
    by = ", ".join(f"{n} by {via}" for via, n in sorted(report.to_json()["in_room_by"].items()))
    echo(f"replayed {counted(report.tasks, 'dated task')} ({report.undated_tasks} undated left out), "
               f"{counted(report.corrections, 'correction')}")
    echo(f"lesson in the room: {report.in_room} of {counted(len(report.repeats), 'repeat correction')}"
               + (f" ({rate:.0%}; {by})" if rate is not None else "") + f"; recall {report.recall}")
    for lesson in report.lessons:
        echo(f"{(lesson.status or '-'):9} {lesson.rule}" + (f"  active since {lesson.activated}" if lesson.activated else ""))
        echo(f"          {summary_line(lesson.to_json())}")
        in_room = (f"{lesson.repeats_in_room} of {counted(lesson.repeats, 'repeat')} with the lesson in the room"
                   if lesson.repeats else "no repeats")
        echo(f"          {counted(len(lesson.task_class), 'task')} of its kind, {counted(len(lesson.corrections), 'correction')}, "
             f"{in_room}")
    echo(f"(a verdict needs at least {report.min_tasks} tasks on each side; evidence a rule was approved from "
               "is never counted after it)")


@click.command("approve")
@click.argument("rule")
@click.option("--title", default=None, help="New title of the rule page.")
@click.option("--text", default=None, help="New wording of the rule (one imperative sentence).")
@click.option("--why", default=None, help="New reason (one sentence).")
@click.option("--apply", "apply_", default=None, help='New condition of when it applies ("when ...").')
@click.option("--evidence", "evidence", multiple=True, metavar="CORRECTION",
              help="A correction that supports the approved text and is promoted (repeatable; default: all listed evidence).")
@click.option("--drop", "drop", multiple=True, metavar="CORRECTION",
              help="An evidence correction that does not support it: back to the inbox (repeatable).")
@click.option("--supersedes", "supersedes", default=None, metavar="OLD",
              help="An active rule this one replaces (it is retired). Never implied.")
@click.option("--keep-older", is_flag=True, hidden=True,
              help="Accepted for old scripts; a plain approve never retires another rule.")
@click.option("--dry-run", is_flag=True, help="Show what approving would do; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@vault_options
def approve_cmd(config: Config, rule: str, title: str | None, text: str | None, why: str | None, apply_: str | None,
                evidence: tuple[str, ...], drop: tuple[str, ...], supersedes: str | None, keep_older: bool,
                dry_run: bool, as_json: bool) -> None:
    """Approve candidate RULE: it becomes active doctrine.

    Edit the title, text, why and apply in the same step. Only the evidence
    kept (--evidence, default all; minus --drop) is promoted; the other
    corrections go back to the inbox. No other rule is retired unless
    --supersedes names it. One undoable operation.
    """
    from brainwork.learn.rules import approve, plan_approval

    chosen = list(evidence) or None
    with open_store(config) as store:
        _synced(config, store)
        if dry_run:
            plan = plan_approval(store, rule, title=title, text=text, why=why, apply=apply_, evidence=chosen,
                                 drop=drop, supersedes=supersedes)
            titles = {c: t for c, t in _correction_titles(store, plan.rule.evidence).items()}
        else:
            d = approve(config, store, rule, title=title, text=text, why=why, apply=apply_, evidence=chosen, drop=drop,
                        supersedes=supersedes, keep_older=keep_older)
        # Superseding is the person's choice; when the two rules teach
        # different lessons they are told so, naming both, before (dry run)
        # and after.
        old = plan.supersedes.id if dry_run and plan.supersedes else (d.retired[0] if not dry_run and d.retired else None)
        warning = _supersede_warning(config, store, plan.rule.id if dry_run else d.rule, old) if old else None
    if warning:
        echo(f"brainwork: warning: {warning}", err=True)
    if dry_run:
        if as_json:
            echo_json(plan.to_json())
            return
        echo(f"would approve {plan.rule.id}" + (f", retiring {plan.supersedes.id}" if plan.supersedes else ""))
        for key, value in plan.edits.items():
            echo(f"  {key}: {value}")
        for c in plan.promote:
            echo(f"  promote  {c}  {titles.get(c, '')}")
        for c in plan.back:
            echo(f"  to inbox {c}  {titles.get(c, '')}")
        if plan.suggested:
            echo(f"  suggested: supersede {plan.suggested} (only with --supersedes {plan.suggested})")
        return
    if as_json:
        echo_json(d.to_json())
        return
    parts = [f"{counted(len(d.corrections), 'correction')} promoted"]
    if d.back:
        parts.append(f"{len(d.back)} back to the inbox: {', '.join(d.back)}")
    if d.retired:
        parts.append(f"retired {', '.join(d.retired)}")
    echo(f"approved {d.rule} ({'; '.join(parts)}); {UNDO_HINT}")
    if d.suggested:
        echo(f"note: consolidation suggested it supersedes {d.suggested}; nothing was retired "
                   f"(to replace it: `brainwork undo`, then approve with --supersedes {d.suggested})")


def _supersede_warning(config: Config, store, rule: str, old: str) -> str | None:
    """:meth:`SupersedeCheck.warning` of ``rule`` superseding ``old`` (loads
    the embedding model: only when a supersession is asked for)."""
    from brainwork.learn.prune import supersede_check
    from brainwork.learn.rule import get_rule

    return supersede_check(config, get_rule(store, rule), get_rule(store, old)).warning()


def _correction_titles(store, ids: list[str]) -> dict[str, str]:
    from brainwork.store import learning as q

    wanted = set(ids)
    return {c["id"]: c["title"] for c in q.corrections(store) if c["id"] in wanted}


@click.command("reject")
@click.argument("rule")
@click.option("--reason", required=True, help="Why the candidate is rejected (recorded on the page).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@vault_options
def reject_cmd(config: Config, rule: str, reason: str, as_json: bool) -> None:
    """Reject candidate RULE with a reason; its cluster is not proposed again unless new corrections join."""
    from brainwork.learn.rules import reject

    with open_store(config) as store:
        _synced(config, store)
        d = reject(config, store, rule, reason)
    if as_json:
        echo_json(d.to_json())
        return
    echo(f"rejected {d.rule}; {UNDO_HINT}")


@click.command("retire")
@click.argument("rule")
@click.option("--reason", default=None, help="Why the rule is retired (recorded on the page).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@vault_options
def retire_cmd(config: Config, rule: str, reason: str | None, as_json: bool) -> None:
    """Retire active RULE: it leaves the doctrine (e.g. after a pruning suggestion)."""
    from brainwork.learn.rules import retire

    with open_store(config) as store:
        _synced(config, store)
        d = retire(config, store, rule, reason)
    if as_json:
        echo_json(d.to_json())
        return
    echo(f"retired {d.rule}; {UNDO_HINT}")


@click.command("link-evidence")
@click.argument("rule")
@click.argument("corrections", nargs=-1, required=True, metavar="CORRECTION...")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@vault_options
def link_evidence_cmd(config: Config, rule: str, corrections: tuple[str, ...], as_json: bool) -> None:
    """Add CORRECTION(s) to the evidence of RULE (active or candidate).

    For an active rule they are promoted (``promoted_from:``); for a
    candidate they join its ``evidence:``. What `brainwork consolidate`
    proposes as evidence for an active rule is linked this way, or with l
    in the workbench's inbox. One undoable operation.
    """
    from brainwork.learn.rules import link_corrections

    with open_store(config) as store:
        _synced(config, store)
        d = link_corrections(config, store, rule, list(corrections))
    if as_json:
        echo_json(d.to_json())
        return
    echo(f"linked {counted(len(corrections), 'correction')} to {d.rule}; {UNDO_HINT}")


@click.command("doctrine")
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", help="Output format.")
@click.option("--budget", type=click.IntRange(1), default=None,
              help="Hard cap in tokens (1 token = 4 characters; default: thresholds.doctrine_budget_tokens, "
                   "2,500 = 10,000 characters).")
@click.option("--cwd", "cwd", type=click.Path(file_okay=False), default=None,
              help="Global rules plus those scoped to the project at this path (scope: in a rule's frontmatter).")
@vault_options
def doctrine_cmd(config: Config, fmt: str, budget: int | None, cwd: str | None) -> None:
    """Print the active rules as a compact block for the start of an agent session.

    Most corrected rules first, then the newest; the block never exceeds the
    budget and says in its last line how many rules it left out. The size
    goes to stderr too, so stdout can be injected as is (e.g. a SessionStart
    hook). Never loads the embedding model. If another brainwork process
    holds the store, the rules are read from the vault files directly.
    """
    from brainwork.learn.doctrine import doctrine, doctrine_from_vault

    try:
        with open_store(config, wait=DOCTRINE_STORE_WAIT) as store:
            _synced(config, store)
            doc = doctrine(config, store, budget, cwd=cwd)
    except StoreBusy:
        doc = doctrine_from_vault(config, budget, cwd=cwd)
    if fmt == "json":
        echo_json(doc.to_json())
    else:
        echo(doc.text, nl=False)
    left = f", {len(doc.omitted)} left out" if doc.omitted else ""
    # In the budget's unit (tokens, as --budget and the left-out line say),
    # not characters beside a budget in tokens. When no rule fits, the
    # warning alone says so (a "~0 of the budget" line beside it says nothing).
    if not doc.nothing_fits:
        echo(f"doctrine: {counted(len(doc.rules), 'active rule')}{left}, ~{doc.text_tokens:,} of the {doc.budget:,} token budget",
             err=True)
    warning = doc.warning()
    if warning:
        echo(f"brainwork: warning: {warning}", err=True)


COMMANDS = [consolidate_cmd, rules_cmd, replay_cmd, approve_cmd, reject_cmd, retire_cmd, link_evidence_cmd, doctrine_cmd]
