"""Theme files: the shipped ones, user ones, and bad ones reported once."""

from __future__ import annotations

from pathlib import Path

from brainwork.tui.app import BrainworkApp
from brainwork.tui.themes import BUNDLED_THEME_DIR, DEFAULT_THEME, load_themes, parse_theme

REPO_THEMES = Path(__file__).resolve().parents[2] / "themes"


def test_shipped_themes_load_from_the_package_path() -> None:
    assert BUNDLED_THEME_DIR.resolve() == REPO_THEMES.resolve()
    loaded = load_themes([BUNDLED_THEME_DIR])
    assert loaded.problems == []
    themes = loaded.themes
    assert {"brainwork-dark", "brainwork-light", "brainwork-high-contrast"} <= set(themes)
    assert themes["brainwork-dark"].dark and not themes["brainwork-light"].dark
    assert themes["brainwork-high-contrast"].variables["border"] == "#FFFFFF"


def test_bad_files_are_reported_with_their_problem(tmp_path: Path) -> None:
    (tmp_path / "a-not-toml.toml").write_text("name = ", encoding="utf-8")
    (tmp_path / "b-no-name.toml").write_text('primary = "#112233"\n', encoding="utf-8")
    (tmp_path / "c-bad-colour.toml").write_text('name = "x"\nprimary = "blurple"\n', encoding="utf-8")
    (tmp_path / "d-typo.toml").write_text('name = "y"\nprimary = "#112233"\nforeground_ = "#fff"\n', encoding="utf-8")
    (tmp_path / "e-good.toml").write_text('name = "mine"\nprimary = "#112233"\ndark = false\n', encoding="utf-8")
    loaded = load_themes([tmp_path, tmp_path / "missing"])
    assert list(loaded.themes) == ["mine"]
    assert not loaded.themes["mine"].dark
    problems = "\n".join(loaded.problems)
    assert len(loaded.problems) == 4
    assert "a-not-toml.toml: not valid TOML" in problems
    assert "b-no-name.toml: 'name' (text) is required" in problems
    assert "c-bad-colour.toml: 'primary': 'blurple' is not a colour" in problems
    assert "d-typo.toml: unknown key(s) foreground_" in problems


def test_user_theme_replaces_by_name(tmp_path: Path) -> None:
    path = tmp_path / "dark.toml"
    path.write_text('name = "brainwork-dark"\nprimary = "#FF0000"\n', encoding="utf-8")
    loaded = load_themes([BUNDLED_THEME_DIR, tmp_path])
    assert loaded.themes["brainwork-dark"].primary == "#FF0000"
    assert parse_theme(path).name == "brainwork-dark"


async def test_app_reports_bad_user_themes_once_and_falls_back(snapshot_config, settle, monkeypatch) -> None:
    user = snapshot_config.user_theme_dir
    user.mkdir(parents=True)
    (user / "broken.toml").write_text("name = [", encoding="utf-8")
    (user / "also-broken.toml").write_text('name = "z"\n', encoding="utf-8")
    (user / "sunset.toml").write_text('name = "sunset"\nprimary = "#FF8800"\n', encoding="utf-8")
    monkeypatch.setenv("BRAINWORK_THEME", "no-such-theme")
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.theme == DEFAULT_THEME
        notes = [n for n in app._notifications if n.title == "Theme problems"]
        assert len(notes) == 1
        assert "broken.toml" in notes[0].message and "also-broken.toml" in notes[0].message
        assert "'no-such-theme' is not known" in notes[0].message
        assert "sunset" in app.available_themes
        await pilot.press("ctrl+p", *"theme: sunset")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.theme == "sunset"
