"""A file the index cannot parse (over ``max_file_bytes``, or holding a NUL
byte) blocks a merge or rename only when it writes a link that may reach
the page, read by the link grammar (``[[good]]``, ``[[good|x]]``,
``[[good#h]]``, ``](good.md)``); a word that merely contains the page's name
does not block it."""

from __future__ import annotations

import pytest

from brainwork.config import load_config
from brainwork.errors import UserError
from brainwork.index.sync import sync
from brainwork.ops.merge import plan_merge
from brainwork.ops.rename import rename
from brainwork.store import Store

LIMIT = 4096  # max_file_bytes of the test vault (bytes)
FILLER = "words about goodness, good times and the binary search " * (LIMIT // 50)


def _vault(make_vault, huge: str | bytes):
    return make_vault({
        "brainwork.toml": f"[thresholds]\nmax_file_bytes = {LIMIT}\n",
        "good.md": "---\ntype: topic\n---\n# good\nthe page kept\n",
        "binary.md": "---\ntype: topic\n---\n# binary\nthe page merged away [[good]]\n",
        "other.md": "# other\n[[binary]] and [[good]]\n",
        "huge.md": huge,
    })


def _plan(vault, tmp_path):
    config = load_config(vault, tmp_path / "store")
    with Store(config.store) as store:
        sync(config, store)
        return plan_merge(config, store, "binary", "good", refresh=False)


@pytest.mark.parametrize("huge", [
    "# huge\n" + FILLER + "[[other]] and [link](other.md) and [[goodness]] and [[binary search]]\n",
    b"\x00\x01 good and binary [[other]] ](https://good.example/binary.md)\n",
], ids=["oversize", "nul-byte"])
def test_a_file_that_only_mentions_the_names_does_not_block(make_vault, tmp_path, huge) -> None:
    plan = _plan(_vault(make_vault, huge), tmp_path)
    assert plan.source == "binary" and plan.target == "good"


@pytest.mark.parametrize("link", ["[[binary]]", "[[Binary|the page]]", "[[binary#Part]]", "![[binary]]",
                                  "[x](binary.md)", "[x](sub/binary.md#h)", "[[good]]", "[[good|shown]]"])
def test_a_file_that_links_to_the_pages_blocks(make_vault, tmp_path, link) -> None:
    vault = _vault(make_vault, "# huge\n" + FILLER + f"see {link}\n")
    with pytest.raises(UserError, match=r"^refusing: huge\.md cannot be parsed .* and may link to the page"):
        _plan(vault, tmp_path)


def test_rename_reads_a_nul_file_by_the_link_grammar(make_vault, tmp_path) -> None:
    vault = _vault(make_vault, b"\x00 the good binary [[other]]\n")
    config = load_config(vault, tmp_path / "store")
    with Store(config.store) as store:
        rename(config, store, "binary", "bits")
    assert (vault / "other.md").read_text() == "# other\n[[bits]] and [[good]]\n"
    (vault / "huge.md").write_bytes(b"\x00 see [[bits|b]]\n")
    with Store(config.store) as store, pytest.raises(UserError, match=r"huge\.md cannot be parsed"):
        rename(config, store, "bits", "bytes")
