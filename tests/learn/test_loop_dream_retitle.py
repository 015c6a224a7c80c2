"""``brainwork dream`` proposes no retitle for a correction (titled by what
went wrong, an event by design), and the suggested thing-title is never cut
inside a URL or a ``name:tag`` token (docs/findings.md, ``diary-title``)."""

from __future__ import annotations

import pytest

from brainwork.analysis.titles import thing_title


@pytest.mark.parametrize("title, expected", [
    ("Deleted the s3://shared/exports/2024 prefix on my own judgement; finance needed it for the audit",
     "Deleted the s3://shared/exports/2024 prefix on my own judgement"),
    ("Switched the Dockerfile to python:latest; it moved to 3.13 and a C extension failed to build",
     "Switched the Dockerfile to python:latest"),
    ("Fetched https://api.example.com/v2/items?page=1,2 every minute, hitting the rate limit of the partner API",
     "Fetched https://api.example.com/v2/items?page=1,2 every minute"),
    # a colon or comma followed by a space still ends a clause
    ("Ticket 5120 of 14.09.2026: certificate for billing expiring", "Certificate for billing expiring"),
    ("Billing export for the quarterly finance review of every customer account, grouped by region and plan",
     "Billing export for the quarterly finance review of every customer account"),
])
def test_a_long_title_is_cut_at_a_clause_never_inside_a_token(title, expected):
    assert thing_title(title, 80) == expected


def test_dream_proposes_no_retitle_for_a_correction(make_vault, embedder):
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.learn.dream import gather
    from brainwork.store import Store

    wrong = "Switched the Dockerfile to python:latest; it moved to 3.13 and a C extension failed to build"
    files = {
        "tasks/bump-base-image.md": "---\ntitle: \"Bump the worker's base image, asked on 2026-11-28\"\ntype: task\n"
                                    "created: 2026-11-28\nrequest: Update python base image\n---\n\nBody.\n",
        "corrections/2026-11-28-switched-the-dockerfile.md": (
            f"---\ntitle: \"{wrong}\"\ntype: correction\ncreated: 2026-11-28\nwrong: \"{wrong}\"\n"
            "correct: Pin the base image to an exact tag after reading what changed\n"
            "why: A floating tag changes the build without any commit\nstatus: open\n"
            "corrects: \"[[tasks/bump-base-image]]\"\n---\n"),
    }
    config = load_config(make_vault(files))
    with Store(config.store) as store:
        sync(config, store)
        items = gather(config, store, today="2026-12-04", embedder=embedder)
    proposed = {p["page"]: p["new_title"] for kind, _key, _summary, p in items if kind == "retitle"}
    # the task's dated title is still proposed; the correction's long one is not
    assert list(proposed) == ["tasks/bump-base-image"]
