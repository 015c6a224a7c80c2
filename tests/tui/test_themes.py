"""Theme files: the shipped ones, user ones, and bad ones reported once."""

from __future__ import annotations

from pathlib import Path

from textual.notifications import Notify

from brainwork.tui.app import BrainworkApp
from brainwork.tui.themes import BUNDLED_THEME_DIR, DEFAULT_THEME, load_themes, parse_theme

from screen_support import toast_titled, toasts  # tests/tui is on sys.path (pytest prepend mode)

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
    assert "d-typo.toml: unknown key foreground_" in problems


def test_user_theme_replaces_by_name(tmp_path: Path) -> None:
    path = tmp_path / "dark.toml"
    path.write_text('name = "brainwork-dark"\nprimary = "#FF0000"\n', encoding="utf-8")
    loaded = load_themes([BUNDLED_THEME_DIR, tmp_path])
    assert loaded.themes["brainwork-dark"].primary == "#FF0000"
    assert parse_theme(path).name == "brainwork-dark"


async def test_app_reports_bad_user_themes_once_and_falls_back(snapshot_config, settle, palette, monkeypatch) -> None:
    user = snapshot_config.user_theme_dir
    user.mkdir(parents=True)
    (user / "broken.toml").write_text("name = [", encoding="utf-8")
    (user / "also-broken.toml").write_text('name = "z"\n', encoding="utf-8")
    (user / "sunset.toml").write_text('name = "sunset"\nprimary = "#FF8800"\n', encoding="utf-8")
    monkeypatch.setenv("BRAINWORK_THEME", "no-such-theme")
    messages: list = []
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=(120, 40), notifications=True, message_hook=messages.append) as pilot:
        note = await toast_titled(pilot, "Theme problems")
        assert len([t for t in toasts(app) if t.title == "Theme problems"]) == 1
        assert "broken.toml" in note.message and "also-broken.toml" in note.message
        assert "'no-such-theme' is not known" in note.message
        await settle(pilot)
        assert app.theme == DEFAULT_THEME
        # once over the whole start-up, however long it took
        assert sum(isinstance(m, Notify) and m.notification.title == "Theme problems" for m in messages) == 1
        assert "sunset" in app.available_themes
        await palette(pilot, "theme: sunset")
        assert app.theme == "sunset"
