"""A task whose title holds the description's own term is a recall
candidate even when its embedding is not among the nearest ones
(``CANDIDATES``): it is scored like the others, not skipped."""

from __future__ import annotations

from brainwork.learn.recall import CANDIDATES, word_matches, words

HOSTS = [f"{name}-{k}" for k in range(1, 5) for name in
         ("billing", "portal", "storefront", "edge", "api", "mail", "vpn", "wiki", "docs", "status", "auth")]
NAMED = "tasks/2026-03-01-zebra-gateway-bake-sale"


def _task(title: str, day: int) -> str:
    return f"---\ntype: task\ntitle: \"{title}\"\ncreated: 2026-01-{day:02d}\n---\n\nDone.\n"


def test_word_matches_prefers_the_rarer_word():
    titles = [(f"tasks/t{k}", f"Fix the build of service {k}") for k in range(10)]
    titles.append(("tasks/zebra", "Fix the zebra-gateway build"))
    titles.append(("tasks/other", "Bake bread"))
    assert word_matches(titles, words("fix zebra-gateway"))[0] == "tasks/zebra"
    assert word_matches(titles, words("fix zebra-gateway"), limit=3) == ["tasks/zebra", "tasks/t0", "tasks/t1"]
    assert "tasks/other" not in word_matches(titles, words("fix zebra-gateway"))
    assert word_matches(titles, words("the")) == []  # stopwords only


def test_a_task_named_by_the_term_is_scored_beyond_the_nearest(make_vault, embedder):
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.learn.embed import embed_pages
    from brainwork.learn.recall import rank_tasks
    from brainwork.store import Store
    from brainwork.store import vectors as vstore

    assert len(HOSTS) > CANDIDATES
    files = {f"tasks/2026-01-{k % 28 + 1:02d}-renew-{h}.md": _task(f"Renew the TLS certificate of {h}", k % 28 + 1)
             for k, h in enumerate(HOSTS)}
    files[f"{NAMED}.md"] = _task("zebra-gateway: bake sale budget for the office party", 1)
    # No floor and room for every task: the answer lists exactly the candidates, each scored.
    files["brainwork.toml"] = "[thresholds]\nrecall_min_similarity = -2.0\nrecall_tasks = 100\n"
    config = load_config(make_vault(files))
    query = "Renew the TLS certificate on zebra-gateway"
    with Store(config.store) as store:
        sync(config, store)
        embed_pages(config, store, embedder=embedder)
        nearest = [i for i, _ in vstore.nearest(store, embedder.encode_one(query), CANDIDATES, type="task",
                                                 model=embedder.name)]
        assert NAMED not in nearest  # the embedding alone does not reach it
        tasks, used_vectors = rank_tasks(config, store, query, embedder)
    assert used_vectors
    named = next(t for t in tasks if t.id == NAMED)
    assert named.overlap == 0.25 and named.similarity != 0.0  # its own cosine, not a placeholder
    assert set(nearest) <= {t.id for t in tasks}
