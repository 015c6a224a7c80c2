"""The learning loop on a small vault with known answers (real Kùzu store,
real embedding model): what consolidation proposes after the person approved
one of two look-alike lessons and rejected the other (docs/learning-loop.md
sections 4-5).

The vault: three corrections teaching "change the config in the infra repo,
never by hand on the server" and three teaching its look-alike "validate the
config with nginx -t before a reload" (both about editing the nginx proxy),
each on a task of its own.
"""

from __future__ import annotations

import shutil
from datetime import date

import pytest

from brainwork.learn.capture import capture
from brainwork.learn.consolidate import consolidate
from brainwork.learn.rules import approve, list_rules, reject

TODAY = date(2026, 12, 4)

#: (created, task title, wrong, correct, why), by lesson.
REPO = [
    ("2026-11-19", "Raise the upload size limit on the proxy",
     "Edited /etc/nginx/nginx.conf directly on web-01; the next ansible run reverted it",
     "Change the config in the infra repo and roll it out with ansible, never by hand on the server",
     "Hand edits on a managed host are overwritten and leave no review trail"),
    ("2026-11-23", "Add a security header on the proxy",
     "Added the HSTS header by editing sites-enabled on web-02 over ssh; web-01 never got it",
     "Make config changes through the infra repository and the ansible playbook",
     "Hosts drift apart when edited one by one"),
    ("2026-11-26", "Tune proxy timeouts",
     "Changed proxy_read_timeout with vim on the host; the change had no pull request and was lost at the next deploy",
     "Commit the change to the infra repo and deploy it with ansible",
     "Unreviewed hand edits are lost and nobody can audit them"),
]
NGINX_T = [
    ("2026-11-18", "Add a redirect for /docs on the web proxy",
     "Reloaded nginx after editing without checking the syntax; a missing semicolon took the proxy down for two minutes",
     "Validate the configuration with nginx -t before every reload",
     "A reload with a broken config drops all traffic, and the check takes a second"),
    ("2026-11-21", "Enable gzip on the proxy",
     "Ran systemctl reload nginx with a typo in gzip_types; the reload failed and the old workers stayed half up",
     "Test the new config (nginx -t) and only reload when it passes",
     "A failed reload leaves the proxy in a state nobody planned"),
    ("2026-11-27", "Add a cache header on the proxy",
     "Reloaded nginx with an invalid directive name and did not run nginx -t",
     "Always run nginx -t first and reload only on success",
     "One broken reload is an outage"),
]
NGINX_T_LATER = ("2026-12-02", "Add a maintenance page on the proxy",
                 "Reloaded nginx without testing the config first; an unbalanced brace stopped it",
                 "Run nginx -t and reload only when it reports ok",
                 "A bad reload is an outage for every site behind the proxy")


def add(config, store, rows, tags="nginx,config") -> list[str]:
    """Capture each row as a task and its correction; returns the correction ids."""
    out = []
    for created, title, wrong, correct, why in rows:
        task = capture(config, store, "task", {"title": title, "request": title, "created": created, "tags": tags,
                                               "outcome": "partial"}, today=TODAY).id
        out.append(capture(config, store, "correction", {"task": task, "created": created, "tags": tags.split(",")[0],
                                                          "wrong": wrong, "correct": correct, "why": why},
                           today=TODAY).id)
    return out


@pytest.fixture(scope="module")
def drafted(tmp_path_factory, embedder):
    """A vault holding both lessons after one consolidation pass (two
    candidates), closed; each test works on a copy."""
    from brainwork.config import load_config
    from brainwork.store import Store

    root = tmp_path_factory.mktemp("loop") / "vault"
    root.mkdir()
    config = load_config(root)
    with Store(config.store) as store:
        repo, nginx_t = add(config, store, REPO), add(config, store, NGINX_T)
        report = consolidate(config, store, today=TODAY)
        by_evidence = {tuple(d.evidence): d.path[:-3] for d in report.drafts}
    assert set(by_evidence) == {tuple(sorted(repo)), tuple(sorted(nginx_t))}, "the two look-alikes are drafted apart"
    return root, by_evidence[tuple(sorted(repo))], by_evidence[tuple(sorted(nginx_t))], nginx_t


@pytest.fixture
def vault(drafted, tmp_path):
    from brainwork.config import load_config
    from brainwork.store import Store

    root, repo_rule, nginx_rule, nginx_t = drafted
    copy = tmp_path / "vault"
    shutil.copytree(root, copy)
    config = load_config(copy)
    store = Store(config.store)
    try:
        yield config, store, repo_rule, nginx_rule, nginx_t
    finally:
        store.close()


def test_a_rejected_lesson_is_not_handed_to_its_look_alike_rule(vault):
    config, store, repo_rule, nginx_rule, nginx_t = vault
    approve(config, store, repo_rule, today=TODAY)
    reject(config, store, nginx_rule, "moving to Caddy", today=TODAY)

    report = consolidate(config, store, today=TODAY, dry_run=True)
    assert not [c for c in report.clusters if set(nginx_t) & set(c.corrections)], \
        "the rejected corrections are proposed as nothing: no evidence, no draft"
    assert report.suppressed == [{"corrections": sorted(nginx_t), "rejected": [nginx_rule]}]

    # written, too: the rejected corrections are not marked clustered again
    consolidate(config, store, today=TODAY)
    assert {r.id: r.status for r in list_rules(store)} == {repo_rule: "active", nginx_rule: "rejected"}
