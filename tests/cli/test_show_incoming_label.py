"""``brainwork show`` prints an incoming link's heading and label apart
from the linking page's id, named, so ``SOURCE|label`` is not read as a
link to a page called that; outgoing links keep them on the target, as
written (``Big#Usage|the usage``)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from brainwork.cli import cli


@pytest.fixture
def run(make_vault, tmp_path):
    vault = make_vault({
        "Big.md": "# Big\n\n## Usage\n\ntext\n",
        "src.md": "---\nrelated: \"[[Big|the big page]]\"\n---\nsee [[Big#Usage|the usage]] and [[Big#Usage]]\n",
    })
    base = ["--vault", str(vault), "--store", str(tmp_path / "store")]
    return lambda *args: CliRunner().invoke(cli, [*base, *args], catch_exceptions=False)


def test_incoming_links_name_their_heading_and_label(run) -> None:
    r = run("show", "Big")
    assert r.exit_code == 0, r.output
    incoming = [l for l in r.output.splitlines() if "←" in l]
    assert "src|" not in r.output and "src#" not in r.output
    assert any(l.split()[:3] == ["←", "related", "src"] and "(shown as 'the big page')" in l for l in incoming), incoming
    assert any("src  (to #Usage, shown as 'the usage')" in l for l in incoming), incoming
    assert any("src  (to #Usage)" in l and "shown as" not in l for l in incoming), incoming


def test_outgoing_links_keep_them_on_the_target(run) -> None:
    out = [l for l in run("show", "src").output.splitlines() if "→" in l]
    assert any("Big#Usage|the usage" in l for l in out), out
    assert any("Big|the big page" in l for l in out), out
