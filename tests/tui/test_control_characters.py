"""The workbench never draws a control character from vault text: page
titles, file names and link targets holding ``ESC`` sequences, C1 controls or
bidi overrides are drawn as visible characters (see brainwork.display)."""

from __future__ import annotations


from brainwork.config import load_config
from brainwork.display import CONTROL_PICTURES
from brainwork.tui.app import BrainworkApp

RAW = {chr(c) for c, v in CONTROL_PICTURES.items()}
TITLE = "Evil \x1b]0;owned\x07 \x9b2J \u202eexe"


def _drawn(app) -> list[str]:
    lines = []
    for widget in app.screen.query("*"):
        if not widget.display or not widget.size.height:
            continue
        for y in range(min(widget.size.height, 60)):
            try:
                lines.append(widget.render_line(y).text)
            except Exception:  # a container without lines of its own
                break
    return lines


async def test_titles_and_names_with_escapes_are_drawn_visible(make_vault, tmp_path, settle) -> None:
    vault = make_vault({
        "Evil.md": f"---\ntitle: \"{TITLE.encode('unicode_escape').decode()}\"\n---\nsee [[odd\x1b(0name]]\r\n",
        "odd\x1b(0name.md": "tiny\n",
    })
    config = load_config(vault, tmp_path / "store")
    app = BrainworkApp(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        drawn = "\n".join(_drawn(app))
        assert "Evil \u241b]0;owned\u2407" in drawn  # the title, its ESC and BEL made visible
        assert not RAW & set(drawn)
        await pilot.press("2")  # findings
        await settle(pilot)
        drawn = "\n".join(_drawn(app))
        assert "odd\u241b(0name" in drawn and not RAW & set(drawn)
