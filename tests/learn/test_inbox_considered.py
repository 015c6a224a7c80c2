"""The inbox tells a correction the last consolidation pass read and left
out of every cluster (a one-off so far) from one no pass has read yet
(copy of sample_vault/, real store, real model)."""

from __future__ import annotations

from brainwork.index.sync import sync
from brainwork.learn.consolidate import consolidate
from brainwork.learn.inbox import inbox
from brainwork.store import learning as q

TODAY = "2026-11-29"
ONE_OFFS = {"corrections/2026-10-21-wrong-kube-context", "corrections/2026-09-10-times-in-utc"}
LATER = "corrections/2026-11-30-after-the-pass"


def test_a_correction_the_last_pass_left_alone_says_so(learn_vault):
    config, store = learn_vault
    assert all(i.considered is None for i in inbox(store))  # no pass yet
    consolidate(config, store, today=TODAY)
    at = q.last_pass(store)["at"]
    (config.vault / f"{LATER}.md").write_text(
        "---\ntitle: After the pass\ntype: correction\ncreated: 2026-11-30\nwrong: w\ncorrect: c\nwhy: y\n"
        "status: open\n---\n", encoding="utf-8")
    sync(config, store)
    items = {i.id: i for i in inbox(store)}
    left_alone = {cid for cid, i in items.items() if i.considered is not None}
    last = q.last_pass(store)
    clustered = {c for cl in last["clusters"] for c in cl["corrections"]}
    assert left_alone == (set(last["corrections"]) - clustered) & set(items)
    assert ONE_OFFS <= left_alone  # the sample vault's one-offs, a lesson each that no other correction repeats
    assert all(items[c].considered == at and items[c].cluster is None for c in ONE_OFFS)
    assert items[LATER].considered is None and items[LATER].cluster is None  # not read by any pass yet
    assert all(i.considered is None for i in items.values() if i.cluster is not None)
    assert items[next(iter(ONE_OFFS))].to_json()["considered"] == at
