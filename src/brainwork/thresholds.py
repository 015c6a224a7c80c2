"""Every tunable threshold of brainwork, in one place.

Each constant names its unit and why it has its value. A vault may override
any of them in ``brainwork.toml`` under ``[thresholds]`` (lower-case names),
read by :func:`brainwork.config.load_config`; code receives the resulting
:class:`Thresholds` object and never reads this module's constants directly
except as defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

#: Files larger than this are not parsed (bytes). A page this size is not a
#: note but a dump; parsing it would stall indexing. Recorded as a parse error.
MAX_FILE_BYTES = 5 * 1024 * 1024

#: Frontmatter whose YAML aliases (``*name``) expand to more values than this
#: is not parsed: a "billion laughs" block of a few hundred bytes expands to
#: 9^9 values and would hang the indexer at 3 GB of memory. Real
#: frontmatter holds tens of values.
MAX_YAML_VALUES = 100_000

#: How long a command waits for a store another brainwork process holds
#: (seconds) before it gives up with "in use by another brainwork process".
#: Kùzu refuses a second process at once; agents run capture hooks in
#: parallel (each holds the store ~0.5 s), and without waiting 4 of 5
#: parallel captures fail. ``$BRAINWORK_STORE_WAIT`` overrides
#: it (0: fail at once).
STORE_BUSY_WAIT_SECONDS = 10.0

# -- page search (brainwork.analysis.search) ---------------------------------
#: Least rapidfuzz ``partial_ratio`` (0-100) for a page search hit that is
#: no word match (a typo, a piece inside a word). One typo in a word of five
#: letters or more passes (``certbto`` ~ ``certbot`` 92, ``verfy`` ~
#: ``verify`` 80); three letters of four alike do not (75), nor a query
#: sharing only letters with a name (``cert`` ~ ``pgloader`` 67, ~ ``kubectl``
#: 57). Word, word-start and initials matches need no score.
SEARCH_FUZZY_CUTOFF = 80.0
#: A page search query shorter than this (characters) matches inside words
#: only as written, without typos: two letters of a three-letter query are
#: in most names (``rtc`` scored 80 against "CI flaky test report").
SEARCH_TYPO_MIN_CHARS = 4

# -- recall (brainwork.learn.recall) -----------------------------------------
#: Least recall budget the CLI and the MCP tool accept (characters). An
#: answer squeezed to its essentials is the header cut to 50 characters, the
#: best task's heading with a dozen characters of its title and its id (~60)
#: and the line counting what was left out (~76): about 190. Under it an
#: answer can hold no task, only that line.
RECALL_MIN_BUDGET_CHARS = 200

# -- agent hooks (brainwork.agents.hooks) -----------------------------------
#: Claude Code replaces a hook's output over 10,000 characters with a short
#: preview and a file path, without telling the model (anthropics/claude-code
#: #42369, #84021); a hook's context never exceeds this (characters).
HOOK_CONTEXT_MAX_CHARS = 10_000
#: Share of a prompt hook's context kept for recall's prior work; the doctrine
#: gets the rest (characters; recall's own default answer is 4,000, of which
#: the prior tasks are the last 40%).
HOOK_RECALL_CHARS = 3_000
#: Less room than this left for recall, and the prompt hook does not ask for it
#: (characters: about two prior-task lines).
HOOK_RECALL_MIN_CHARS = 400
#: A prompt of at most this many words, every one an acknowledgement ("ok",
#: "thanks", "yes go on"), is trivial: the prompt hook stays silent (words).
TRIVIAL_PROMPT_MAX_WORDS = 6
#: Seconds a hook waits for the store's owner to answer: past it the hook
#: gives up for this turn rather than hold the session. A recall in an idle
#: owner answers in ~0.5 s; a workbench busy with a long operation keeps a
#: request ~10 s before it says so, which a prompt must not wait for.
HOOK_OWNER_TIMEOUT_SECONDS = 4.0
#: Seconds a hook waits for a store another one-shot brainwork process holds.
HOOK_STORE_WAIT_SECONDS = 2.0
#: A proposed correction quotes at most this much of the person's turn
#: (characters).
PROPOSAL_QUOTE_CHARS = 600
#: The MCP ``read_page`` tool returns at most this much of a page's text per
#: call (characters), cut at a line's end; the answer says how much is left
#: and the ``offset`` that reads on. Claude Code warns when an MCP answer
#: passes 10,000 tokens (~40,000 characters) and puts one over 50,000
#: characters into a file instead of the model's context; the text travels
#: twice (the text block and the structured content), so 20,000 keeps a
#: whole answer under both. A page that needs no split (``oversize_bytes``,
#: 32 KiB) takes one or two calls. Same order as HOOK_CONTEXT_MAX_CHARS.
MCP_PAGE_MAX_CHARS = 20_000

# -- secret scan (brainwork.analysis.secrets) ---------------------------------
#: The secret gate runs through Arrow (RE2 over all lines at once) on ASCII
#: text of at least this many characters (= bytes) when the process has not
#: imported pyarrow.compute yet; shorter text takes one ``re`` pass per gate
#: and leaves numpy and pyarrow unimported (a hook scans one capture of a
#: few KB). The plain path costs ~20 ms CPU per MB, the Arrow path ~9 ms
#: per MB plus ~0.14 s for its first call in a new process (the imports);
#: they break even at 16 MB (0.31 s vs 0.33 s; 0.075 s vs 0.20 s at 4 MB,
#: 1.7 s vs 0.9 s at 64 MB). Measured 2026-12-03 on 2 shared cores, load
#: 6-9, medians of 5: ``python -m benchmarks.bench_hooks --gate-crossover``.
SECRET_GATE_ARROW_MIN_CHARS = 16_000_000
#: The same when pyarrow.compute is already imported (the store's Arrow
#: reads did it, as in ``brainwork check``): the second Arrow call breaks
#: even with the plain path at 64 KB (1.5 ms each) and is ahead from 128 KB
#: on (2.2 ms vs 2.9 ms; 9 ms vs 23 ms at 1 MB). Same command and run.
SECRET_GATE_ARROW_LOADED_MIN_CHARS = 64_000


@dataclass(frozen=True)
class Thresholds:
    """Tunable limits. Units are in the field names' docs below.

    - ``max_file_bytes``: files over this are not parsed (bytes, default 5 MiB).
    - ``stub_chars``: a page with fewer characters of body text is a stub
      (characters after removing frontmatter, markup and link syntax).
    - ``diary_title_chars``: a title this long or longer names an event, not a
      thing (characters).
    - ``duplicate_similarity``: pairs scoring at least this are suspected
      duplicates (0..1).
    - ``merge_candidate_similarity``: pairs at least this similar are proposed
      for merging (0..1).
    - ``oversize_bytes``: a page over this should be split (bytes).
    - ``duplicate_name_weight``: weight of the names score (title, aliases,
      file name) in the lexical duplicate score; the body weighs the rest
      (0..1; with 0.4 a duplicate needs names >= 0.7 and body >= 0.8 alike,
      which separates sample_vault/'s planted pair, 0.89, from its next most
      similar pair, 0.64; brainwork.analysis.duplicates).
    - ``retarget_similarity``: an existing page is suggested as the new target
      of a dead link when one of its names is at least this similar to the
      written target (0..1, rapidfuzz ratio; at 0.6 "Example" already
      suggested "Templates" on the Obsidian help vault; the ``dead-link`` finding).
    - ``thing_title_similarity``: a diary title's suggested thing-title names
      an existing thing page when at least this similar to its title (0..1,
      rapidfuzz token-sort ratio; the ``diary-title`` finding).
    - ``cluster_similarity``: two corrections' lesson similarity
      (brainwork.learn.consolidate.lesson_matrices: the weighted mean of the
      cosines of their ``correct``, ``why`` and ``wrong``, field by field,
      specifics dropped) at least this joins them in one cluster during
      consolidation (0..1, average linkage: the mean similarity between two
      merged groups). With all-MiniLM-L6-v2 on benchmarks/lessons/ in an
      empty vault and in a copy of sample_vault/, 0.25 scores best (ARI
      0.70 in both at the member checks below; 0.22 merges lessons, 0.28-0.30
      splits them; docs/learning-loop.md section 4).
    - ``cluster_why_weight``: weight of the ``why`` cosine in that mean, the
      ``correct`` weighing 1 (0..1); also the ``why``'s weight in the lesson
      vector ``unit(e(correct) + w * e(why))`` a cluster's reported
      similarity and drafting use. The why often repeats between look-alike
      lessons ("the failure was real"), so it weighs less than what to do.
    - ``cluster_wrong_weight``: weight of the ``wrong`` cosine in that mean
      (0..). A one-off about the same kind of work as a lesson shares its
      topic, not the act corrected (the ``wrong`` keeps its quoted words:
      there they are the act). On the benchmark 0.7 leaves 1/14 one-offs in
      a proposal in both vaults; 0.5 lets 2-3/14 in, 1.0-1.3 merge more in
      the sample copy.
    - ``cluster_member_similarity``: after clustering, each member of a
      cluster of three or more must have at least this mean similarity to
      the other members, else it leaves (0..1; keeps a one-off that is near
      only part of a lesson out of it).
    - ``cluster_pair_similarity``: the same for a cluster of two: its one
      similarity must reach this (0..1). Two unrelated one-offs about one
      kind of work pair up at the linkage threshold. 0.33: above 0.35 the
      two quote corrections of sample_vault/ (one lesson) no longer pair.
    - ``rule_match_similarity``: a cluster that shares no evidence with a
      rule and teaches no active rule's lesson is matched to the CANDIDATE
      rule whose page its centroid is at least this similar to: its new
      corrections join that candidate's evidence instead of a second draft
      (0..1, cosine, cluster centroid vs candidate page). Only candidates:
      an active rule is matched on its lesson, the group against the
      rule's promoted evidence with clustering's own bars
      (``cluster_similarity``, ``cluster_member_similarity``,
      ``cluster_pair_similarity``), or against its text+why with
      ``supersede_similarity`` when it has no evidence, never on its page
      (a correction about another lesson in the same kind of work shares
      the page's wording; brainwork.learn.consolidate).
    - ``rule_contradiction_margin``: a cluster matching an active rule
      contradicts it (and is drafted as a superseding rule) when the rule text
      is closer to the corrections' ``wrong`` text than to their ``correct``
      text by at least this much (cosine difference) and, for a rule with
      promoted evidence, when the corrections' ``wrong`` is also closer to
      that evidence's ``correct`` than to its ``wrong`` by as much: a repeat's
      ``wrong`` names the mistake the rule warns about, so it is near the
      rule's text too (a repeat of the chain rule: +0.20 by the text, -0.11
      by the evidence).
    - ``supersede_similarity``: a cluster that contradicts an active rule is
      drafted as superseding it only when both teach the same lesson: the
      rule's text+why and the centroid of the cluster's lessons (each
      member's first ``correct`` sentence + first ``why`` sentence) are at
      least this cosine-similar; otherwise it is drafted as a rule of its
      own (0..1; on sample_vault/ with all-MiniLM-L6-v2 the same-lesson
      pairs score 0.55 (chain corrections vs the leaf-only rule) to 0.70,
      the best unrelated pair 0.44 (CI corrections vs the backup rule),
      three unrelated CI/build corrections vs the chain rule 0.30).
    - ``rule_task_similarity``: a task belongs to a lesson's task class (for
      the replay's before/after and staleness) when its title + request
      vector is this similar to the centroid of the title + request vectors
      of the tasks the lesson's evidence came from (0..1, cosine; on
      sample_vault/ with all-MiniLM-L6-v2 later certificate renewals score
      0.54-0.79 against the chain rule's renewals and the blog post about
      certificates 0.51; migrations vary more, 0.27-0.59, and join by tags;
      brainwork.learn.replay).
    - ``task_class_tags``: a task also joins a lesson's task class when it
      carries this many of the lesson's class tags (tags on at least half of
      the evidence tasks; all of them when there are fewer). With 2 on
      sample_vault/ every migration joins the backup lesson (migration,
      postgres) and a blog post that merely mentions postgres does not.
    - ``lesson_similarity``: a correction that is no rule's evidence belongs
      to the lesson whose evidence centroid it is this cosine-similar to (the
      nearest one; page vectors; 0..1). On sample_vault/ the later backup
      corrections score 0.48-0.61 against the backup rule's evidence, the
      unapproved customer quote 0.64 against the sourcing lesson; unrelated
      corrections stay below 0.40 (the kubectl context slip: 0.09 against
      the chain lesson).
    - ``replay_min_tasks``: the replay compares a lesson's repeat rate before
      and after its rule became active only with at least this many tasks of
      its class on each side; below, it says "too little data" (tasks).
    - ``replay_min_fewer_tasks``: "fewer repeats after" needs the after side
      to have at least this many repeated tasks fewer than the before rate
      predicts (before rate x after tasks). On the labelled lessons
      benchmark, where the agent never improved, two of twelve rules dropped
      by less than one task (0.75 -> 0.67, 0.33 -> 0.20 on 3-6 tasks a side)
      and were called improvements without it (tasks).
    - ``rule_overlap_similarity``: two active rules whose rule text + why are
      this cosine-similar teach the same lesson and are proposed for a merge
      (0..1; all-MiniLM-L6-v2 on the text and why alone, sample_vault/: two
      wordings of the certificate-chain rule score 0.89, of the backup rule
      0.79; the opposite CI rules "read the log before re-running" and
      "re-run automatically" 0.78, which a merge must not join; the chain
      and backup rules 0.31; brainwork.learn.prune).
    - ``rule_stale_days``: an active rule whose task class had no task for
      this many days (since its newest class task or its activation,
      whichever is later) is proposed for retirement (days).
    - ``doctrine_budget_tokens``: default size budget of the doctrine block
      (tokens, estimated as characters / 4; a hard cap on what
      ``brainwork doctrine`` prints). 2,500 tokens = 10,000 characters, the
      most a Claude Code hook passes on whole (HOOK_CONTEXT_MAX_CHARS).
    - ``recall_budget_chars``: default size of a recall answer (characters).
    - ``remember_similarity``: ``brainwork remember`` files an insight on the
      nearest thing page (customer, project, system, person, problem,
      topic) when their cosine reaches this, else proposes a new page
      (0..1, all-MiniLM-L6-v2, insight vs page vector). Measured on 14
      labelled insights on sample_vault/ (``python -m
      benchmarks.bench_remember``): insights whose page exists score
      0.28-0.61 against it, insights with no page 0.17-0.33; 0.35 files 12
      of 14 right (one on a neighbouring page, billing v2 for the billing
      API, 0.40; one proposed as a new page, 0.28), 0.40 files 10, 0.30 11.
    - ``vector_index_min_rows``: from this many embedded pages on, vector
      search uses Kùzu's HNSW index; below, brute force is faster (rows;
      brute force measured ~2.8 ms at 10k and ~17 ms at 50k rows, HNSW
      ~3.3 ms at 10k; building the index ~2 s per 1,000 rows).
    - ``recall_min_similarity``: a prior task joins a recall answer on its
      own evidence when max(cosine to the task page, best cosine to one of
      its corrections) + the weighted title/tag overlap reaches this, and
      once one did, others whose whole ranking score reaches it (0..1;
      brainwork.learn.recall). Measured on
      benchmarks/lessons/ (``python -m benchmarks.bench_recall``,
      all-MiniLM-L6-v2): the best relevant task of 21 of the 22 queries
      reaches 0.35-0.98 (the last 0.28), the best task for the six
      unrelated requests (``recall_unrelated``: an offsite menu, flights,
      plants) 0.21-0.30; 0.30 answers those 21 and leaves the unrelated
      ones empty. The sum of the weighted terms (the ranking score) cannot
      gate: unrelated requests reach 0.44 on it, relevant ones start at 0.39.
    - ``recall_tasks``: at most this many prior tasks in a recall answer
      (three: the benchmark's queries have three or more relevant earlier
      tasks, and each brings its lessons).
    - ``recall_overlap_weight``: weight of title/tag word overlap (0..1, the
      share of the description's content words found in a task's title and
      tags) added to the cosine similarity when ranking prior tasks.
    - ``recall_situation_weight``: weight of the best cosine between the
      description and one of a task's corrections (what went wrong, in which
      situation). On the recall benchmark 0.5-0.7 score alike (recall@3
      0.80-0.79); without it recall@3 falls to 0.68 (page cosine alone).
    - ``recall_lesson_weight``: weight of the best cosine between a task's
      corrections and those of the two best-scoring tasks (same lesson,
      other surface). On the benchmark 0.2-0.4 add about 0.03 recall@3.
    - ``recall_relative_cutoff``: not used any more (the replay once cut
      its recomputed recall at this fraction of the best task's score; it
      now ranks with recall's own ranking, which has no such cut). Kept so
      that a ``brainwork.toml`` naming it still loads.
    """

    max_file_bytes: int = MAX_FILE_BYTES
    stub_chars: int = 120
    diary_title_chars: int = 80
    duplicate_similarity: float = 0.88
    merge_candidate_similarity: float = 0.93
    oversize_bytes: int = 32 * 1024
    duplicate_name_weight: float = 0.4
    retarget_similarity: float = 0.7
    thing_title_similarity: float = 0.8
    cluster_similarity: float = 0.25
    cluster_why_weight: float = 0.5
    cluster_wrong_weight: float = 0.7
    cluster_member_similarity: float = 0.28
    cluster_pair_similarity: float = 0.33
    rule_match_similarity: float = 0.45
    rule_contradiction_margin: float = 0.05
    supersede_similarity: float = 0.50
    rule_task_similarity: float = 0.55
    task_class_tags: int = 2
    lesson_similarity: float = 0.45
    replay_min_tasks: int = 3
    replay_min_fewer_tasks: float = 1.0
    rule_overlap_similarity: float = 0.80
    rule_stale_days: int = 60
    doctrine_budget_tokens: int = 2500
    recall_budget_chars: int = 4000
    vector_index_min_rows: int = 50_000
    remember_similarity: float = 0.35
    recall_min_similarity: float = 0.30
    recall_tasks: int = 3
    recall_overlap_weight: float = 0.2
    recall_relative_cutoff: float = 0.75
    recall_situation_weight: float = 0.5
    recall_lesson_weight: float = 0.4

    def with_overrides(self, values: dict[str, object]) -> "Thresholds":
        """Return a copy with ``values`` applied.

        Raises:
            ValueError: an unknown name, or a value of the wrong type.
        """
        known = {f.name: f for f in fields(self)}
        changes: dict[str, object] = {}
        for key, value in values.items():
            if key not in known:
                raise ValueError(f"unknown threshold {key!r} (known: {', '.join(sorted(known))})")
            current = getattr(self, key)
            if isinstance(current, int) and not isinstance(value, bool) and isinstance(value, int):
                changes[key] = value
            elif isinstance(current, float) and isinstance(value, (int, float)) and not isinstance(value, bool):
                changes[key] = float(value)
            else:
                raise ValueError(f"threshold {key!r} must be a {type(current).__name__}, got {value!r}")
        return replace(self, **changes)


DEFAULT_THRESHOLDS = Thresholds()

# -- agent hooks and MCP (appended) --------------------------------------------
#: Seconds a Stop hook waits for another Stop hook of the same session to
#: finish writing its pages (the lock of ``brainwork.agents.hooks``): a stop
#: writes in well under a second without loading the model and in a few
#: seconds with it; Claude Code kills a hook after 60 s by default, so the
#: wait stays well inside that.
HOOK_SESSION_LOCK_WAIT_SECONDS = 30.0
#: The MCP ``read_page`` tool lists at most this many edges each way (links
#: out, links in); the answer says how many more there are and keeps the
#: totals in its structured content. A hub page has thousands of backlinks.
#: Each edge costs ~300 characters of JSON plus a ~90-character text line,
#: so both directions at this cap take ~9,000 characters: with a whole
#: MCP_PAGE_MAX_CHARS part, sent twice, the answer stays under the 50,000
#: characters past which Claude Code moves an MCP answer out of the model's
#: context.
MCP_PAGE_EDGES_MAX = 12
