"""Where the generator reads templates and writes caches (symbolic.codegen.locations)."""

from __future__ import annotations

from pathlib import Path

from symbolic.codegen import locations

ROOT = Path(__file__).resolve().parents[2]


def test_a_checkout_uses_its_own_templates_and_cache():
    assert locations.CHECKOUT == ROOT
    assert locations.TEMPLATES == ROOT / "templates" and (locations.TEMPLATES / "records.py.j2").is_file()
    assert locations.cache_root() == ROOT / ".cache"


def test_the_user_cache_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert locations.user_cache() == tmp_path / "xdg" / "mlsysym"
    for ignored in ("", "relative/cache"):  # the XDG spec: a relative path is invalid and ignored
        monkeypatch.setenv("XDG_CACHE_HOME", ignored)
        assert locations.user_cache() == tmp_path / "home" / ".cache" / "mlsysym"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert locations.user_cache() == tmp_path / "home" / ".cache" / "mlsysym"


def test_an_installed_copy_caches_in_the_user_cache(monkeypatch, tmp_path):
    monkeypatch.setattr(locations, "CHECKOUT", None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert locations.cache_root() == tmp_path / "mlsysym"
