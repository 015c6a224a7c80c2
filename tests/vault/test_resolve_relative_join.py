"""The first resolution rule (relative to the linking page's folder) joins
plain names without normpath: every other shape must still go through it."""

from __future__ import annotations

import itertools
import posixpath

from brainwork.vault.resolve import Resolution, Resolver, norm

PAGES = ["a/b/x", "a/x", "x", "a/b/y/z", "b/x", "Ä/x", "a/b/x.y", "a/b/.x", "y/z"]
SOURCES = ["a/b/src", "a/src", "src", "a//b/src", "a/./b/src", "a/../b/src", "/a/b/src", "../a/src", "Ä/src", "A/B/src"]
TARGETS = ["x", "X", "x.md", "y/z", "./x", "../x", "../../x", "x/", "y//z", ".x", "y/.z", "/x", "x.y", "b/x",
           "a/b/x", "..", ".", ".md", "Ä/x", "y/./z", "y/../x", "b/../x", "y/..", "y/."]


def _reference(r: Resolver, target: str, source: str) -> Resolution:
    key = norm(target.strip().replace("\\", "/"))
    if key.endswith(".md"):
        key = key[:-3]
    joined = posixpath.normpath(posixpath.join(norm(posixpath.dirname(source)), key))
    if not joined.startswith("../") and joined != "..":
        hit = r.by_path.get(joined)
        if hit is not None:
            return Resolution(hit)
    return r.resolve(target, source, relative=False)


def test_relative_resolution_matches_a_join_and_normpath_of_every_shape() -> None:
    r = Resolver(PAGES)
    for source, target in itertools.product(SOURCES, TARGETS):
        assert r.resolve(target, source) == _reference(r, target, source), (source, target)
