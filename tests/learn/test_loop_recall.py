"""``brainwork recall`` leaves out what the doctrine already says: the
corrections an active rule was promoted from are not repeated in the answer
(the agent has the rule from session start); once the rule is retired they
are served again. Small vault, real store and model (docs/learning-loop.md
section 3)."""

from __future__ import annotations

from datetime import date

from brainwork.learn.capture import capture

TODAY = date(2026, 12, 4)
UTC = [
    ("2026-11-16", "Correlate API and worker logs for the 500s",
     "Lined up the api log (UTC) with the worker log (Europe/Berlin local time) directly and blamed the wrong deploy",
     "Normalise every log's timestamps to UTC before lining events up",
     "Servers log in different zones, so an hour offset points at the wrong cause"),
    ("2026-11-19", "Correlate the cron log and the app log for the double run",
     "Compared the cron log in local time to the app log in UTC and concluded the job ran twice",
     "Convert both sources to one zone, UTC, before deciding what ran when",
     "Mixed zones invent duplicate or missing runs around DST"),
]
#: Not promoted: a lesson of the same kind of work the doctrine does not state.
OPEN = ("2026-11-20", "Correlate the proxy log and the api log for the timeouts",
        "Matched proxy and api log lines by timestamp alone and paired the wrong requests",
        "Match log lines across services by request id, not by time",
        "Clocks drift and many requests share a second")


def _vault(make_vault):
    from brainwork.config import load_config
    from brainwork.store import Store

    config = load_config(make_vault({}))
    store = Store(config.store)
    ids = []
    for created, title, wrong, correct, why in UTC + [OPEN]:
        task = capture(config, store, "task", {"title": title, "request": title, "created": created, "tags": "logs"},
                       today=TODAY).id
        ids.append(capture(config, store, "correction", {"task": task, "created": created, "wrong": wrong,
                                                          "correct": correct, "why": why}, today=TODAY).id)
    evidence = "".join(f"  - \"[[{i}]]\"\n" for i in ids[:2])
    (config.vault / "rules").mkdir(exist_ok=True)
    (config.vault / "rules" / "put-log-timestamps-in-utc.md").write_text(
        "---\ntitle: Put every log timestamp in UTC before comparing\ntype: rule\ncreated: 2026-11-21\n"
        "rule: Put every log timestamp in UTC before comparing timelines.\n"
        "why: Servers log in different zones.\napply: when a task is about logs work\nstatus: candidate\n"
        f"evidence:\n{evidence}---\n\nDrafted.\n", encoding="utf-8")
    return config, store, ids[:2], ids[2]


def test_the_promoted_evidence_of_an_active_rule_is_not_repeated(make_vault, embedder):
    from brainwork.index.sync import sync
    from brainwork.learn.embed import embed_pages
    from brainwork.learn.recall import recall
    from brainwork.learn.rules import approve, retire

    config, store, promoted, open_ = _vault(make_vault)
    try:
        sync(config, store)
        approve(config, store, "rules/put-log-timestamps-in-utc", today="2026-11-21")
        embed_pages(config, store)
        ask = "Correlate the api log and the worker log to explain the 502s"
        r = recall(config, store, ask, embedder=embedder, record=False)
        assert len(r.tasks) == 3, "every log-correlation task still bears on it"
        served = {x.id for x in r.related}
        assert open_ in served and not served & set(promoted)
        assert not [i for i in promoted if i in r.text]
        assert "(the doctrine is not repeated here)" in r.text

        retire(config, store, "rules/put-log-timestamps-in-utc", "logs moved to one zone", today="2026-12-01")
        r = recall(config, store, ask, embedder=embedder, record=False)
        assert set(promoted) <= {x.id for x in r.related}, "a retired rule is no longer doctrine"
    finally:
        store.close()
