"""Pages made from one template share its lines (a footer linking to the
page itself, "do not edit" comments, empty fields); those lines are on many
pages and are left out of the body comparison, so two such pages are
duplicates only when what they say of their own is alike."""

from __future__ import annotations

import random

import numpy as np

from brainwork.analysis import duplicates
from brainwork.analysis.findings import check
from brainwork.config import load_config
from brainwork.index.sync import sync

#: The template: a header comment, empty fields and a footer with the page's own path in its link.
TEMPLATE = """%% ----- Do not edit this section ----- %%

# {name}

- GitHub: [{handle}](https://github.com/{handle}/) ^github
<!-- - Discord: `@` ^discord-->
<!-- - [[Publish sites|Publish site]]: <https://> ^publish-->

%% Feel free to add a bio below this comment %%

## Author of

{own}

<!-- ## Sponsor this author -->
<!-- - [[GitHub sponsors]]: [Sponsor on GitHub Sponsors](https://github.com/sponsors/{handle}) ^github-sponsor-->
<!-- - [[Buy me a coffee]]: <https://> ^buy-me-a-coffee-->
<!-- - [[PayPal]]: <https://> ^paypal-->

%% Hub footer: Please don't edit anything below this line %%

# This note in GitHub

<span class="git-footer">[Edit In GitHub](https://github.dev/hub/blob/main/People/{handle}.md "edit") | [Copy this note](https://raw.githubusercontent.com/hub/main/People/{handle}.md "copy")</span>
"""

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
         "quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()


def _person(k: int, name: str | None = None, own: str | None = None) -> str:
    handle = f"user{k:03d}"
    own = own if own is not None else f"- [[plugin-{WORDS[k % 26]}-{WORDS[(k * 7) % 26]}|{WORDS[k % 26].title()} plugin]]"
    return "---\naliases:\n- " + (name or f"Person {WORDS[k % 26]} {k}") + "\n---\n" + TEMPLATE.format(
        name=name or f"Person {k}", handle=handle, own=own)


def test_pages_of_one_template_are_compared_by_their_own_lines(make_vault, store, tmp_path) -> None:
    files = {f"People/user{k:03d}.md": _person(k) for k in range(40)}  # the template on 40 pages
    # Two different people who share a display name (an organisation's), as two accounts of it do.
    files["People/erica.md"] = _person(100, "Obsidian", "- [[gemmy|Gemmy]]")
    files["People/gnopps.md"] = _person(101, "Obsidian", "- [[obsidian-rewarder|Rewarder]]")
    # One person's page written twice: the same own lines.
    own = "- [[kanban|Kanban]]\n- [[calendar|Calendar]]\n\nWrites plugins for planning and daily notes."
    files["People/mgmeyers.md"] = _person(102, "Matthew Meyers", own)
    files["People/mgmeyers-2.md"] = _person(103, "Matthew Meyers", own)
    vault = make_vault(files)
    config = load_config(vault, tmp_path / "store")
    sync(config, store)
    pairs = {(f.page, f.other) for f in check(config, store, ["duplicate"])}
    assert pairs == {("People/mgmeyers", "People/mgmeyers-2")}, pairs


def test_own_text_keeps_lines_on_few_pages_and_blank_keys() -> None:
    body = "kept line\n  boiler https://x.example/a/b  \n\n"
    bp = np.sort(np.asarray(duplicates._stable_hashes([duplicates._line_key("boiler https://x.example/zzz")]),
                            dtype=np.int64))
    assert duplicates._own_text(body, bp, {}) == "kept line\n\n"
    assert duplicates._own_text(body, np.empty(0, dtype=np.int64), {}) is body
    assert duplicates._own_text("nothing common\n", bp, {}) == "nothing common\n"
    # The Arrow keys and the Python keys are the same strings.
    got = duplicates._distinct_lines(["a https://q.example/x)\n\r\n  a  \n", "b\n"])
    want = duplicates._stable_hashes(["a )", "a", "b"])
    assert sorted(got.tolist()) == sorted(want)


def test_two_bare_templates_are_compared_whole(make_vault, store, tmp_path) -> None:
    boiler = "\n".join(f"%% Template line {k}: keep this section as it is %%" for k in range(6))
    files = {f"notes/n{k:02d}.md": f"{boiler}\n\n{' '.join(random.Random(k).sample(WORDS, 8))}\n"
             for k in range(26)}
    # Both nothing but the template, under one name: alike as wholes.
    files["drafts/a.md"] = f"---\ntitle: Weekly review\n---\n{boiler}\n"
    files["drafts/b.md"] = f"---\ntitle: Weekly review\n---\n{boiler}\n"
    vault = make_vault(files)
    config = load_config(vault, tmp_path / "store")
    sync(config, store)
    pairs = {(f.page, f.other): f.evidence["body"] for f in check(config, store, ["duplicate"])}
    assert pairs == {("drafts/a", "drafts/b"): 1.0}, pairs
