"""``brainwork dream`` never proposes merging a rejected or retired rule page
with a duplicate, either way (a merge cannot be undone, and such a page
records a decision), and refuses to carry out such a merge queued before the
rule was rejected. Small vault, real store and model (docs/findings.md,
``duplicate``)."""

from __future__ import annotations

import pytest

RULE = """---
title: {title}
type: rule
created: 2026-11-20
tags: [rule, nginx]
rule: Validate the configuration with nginx -t before every reload.
why: A reload with a broken config drops all traffic, and the check takes a second.
apply: when a task is about nginx work
status: {status}
---

Drafted by `brainwork consolidate`. Evidence: 3 corrections in 3 tasks. Run nginx -t and reload only
when it passes; a broken reload takes the proxy down for every site behind it.
"""
SYSTEM = """---
title: {title}
type: system
---

The edge proxy terminates TLS for every public site and forwards to the app servers on port 8080.
It runs nginx on web-01 and web-02, configured from the infra repository by ansible.
"""


def _vault(make_vault, rules: dict[str, str]):
    from brainwork.config import load_config

    files = {f"rules/{name}.md": RULE.format(title="Validate the configuration with nginx -t before every reload",
                                             status=status) for name, status in rules.items()}
    files["systems/edge-proxy.md"] = SYSTEM.format(title="Edge proxy")
    files["systems/edge-proxy-copy.md"] = SYSTEM.format(title="Edge proxy (copy)")
    return load_config(make_vault(files))


def _merges(config, store, embedder):
    from brainwork.index.sync import sync
    from brainwork.learn.dream import gather
    from brainwork.learn.embed import embed_pages

    sync(config, store)
    embed_pages(config, store)
    return [{p["source"], p["target"]} for kind, _k, _s, p in gather(config, store, today="2026-12-04", embedder=embedder)
            if kind == "merge"]


@pytest.mark.parametrize("status", ["rejected", "retired"])
def test_a_settled_rule_is_never_a_merge_source_or_target(make_vault, embedder, status):
    from brainwork.store import Store

    config = _vault(make_vault, {"validate-nginx": status, "validate-nginx-2": "candidate"})
    with Store(config.store) as store:
        merges = _merges(config, store, embedder)
    assert {"systems/edge-proxy", "systems/edge-proxy-copy"} in merges, "other duplicates are still proposed"
    assert not [m for m in merges if m & {"rules/validate-nginx", "rules/validate-nginx-2"}]


def test_a_merge_queued_before_the_rejection_is_refused(make_vault, embedder):
    from brainwork.errors import UserError
    from brainwork.learn.dream import accept, dream
    from brainwork.learn.rules import reject
    from brainwork.store import Store

    config = _vault(make_vault, {"validate-nginx": "candidate", "validate-nginx-2": "candidate"})
    with Store(config.store) as store:
        assert {"rules/validate-nginx", "rules/validate-nginx-2"} in _merges(config, store, embedder)
        queued = next(p for p in dream(config, store, today="2026-12-04", embedder=embedder).proposals
                      if p.kind == "merge" and p.payload["source"].startswith("rules/"))
        reject(config, store, "rules/validate-nginx", "moving to Caddy", today="2026-12-04")
        before = {p: p.read_bytes() for p in (config.vault / "rules").glob("*.md")}
        with pytest.raises(UserError, match="rejected or retired"):
            accept(config, store, queued.id, yes=True)
        assert {p: p.read_bytes() for p in (config.vault / "rules").glob("*.md")} == before
