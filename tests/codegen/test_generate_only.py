"""Working on one scenario: ``python -m symbolic.generate --only <module>`` renders it alone with every
check and writes nothing unless asked; the modules to render are imported before any worker starts."""

from __future__ import annotations

import pytest

import symbolic.codegen.pipeline as pipeline
from symbolic.generate import main
from symbolic.runtime.errors import DeclarationError


def test_only_renders_one_scenario_and_writes_nothing(capsys, monkeypatch):
    import symbolic.generate as generate

    written: list = []
    monkeypatch.setattr(generate.Path, "write_bytes", lambda self, data: written.append(self))
    assert main(["--only", "host_dispatch"]) == 0
    out = capsys.readouterr().out
    assert "host_dispatch: every check passed" in out and "match generated/" in out
    assert written == []


def test_only_names_close_modules_for_a_typo(capsys):
    assert main(["--only", "host_dispatc"]) == 2
    assert "did you mean host_dispatch" in capsys.readouterr().err


def test_write_goes_with_only():
    with pytest.raises(SystemExit):
        main(["--write"])


def test_a_module_that_does_not_import_is_reported_before_any_worker(monkeypatch):
    def broken(name: str):
        raise ImportError("cannot import name 'Exp' from 'symbolic.model'")

    monkeypatch.setattr(pipeline, "load", broken)
    with pytest.raises(DeclarationError, match=r"symbolic/scenarios/framework/host_dispatch.py does not load: "
                                               r"ImportError: cannot import name 'Exp'"):
        pipeline.import_all(["host_dispatch"])


def test_the_module_walks_kept_on_disk_give_the_same_keys(tmp_path, monkeypatch):
    """symbolic/ is parsed once and its imports kept by each file's digest: the keys are those of a fresh parse."""
    from symbolic.codegen import keys

    monkeypatch.setattr(keys, "_walks_file", lambda root: tmp_path / "walks.json")
    monkeypatch.setattr(keys, "_WALKS", {})
    keys._module.cache_clear()
    fresh = keys.scenario_keys()
    assert (tmp_path / "walks.json").is_file()
    monkeypatch.setattr(keys, "_WALKS", {})
    keys._module.cache_clear()
    assert keys.scenario_keys() == fresh
