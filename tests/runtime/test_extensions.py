"""The runtime's extension point: ``explain`` reaches the generator through an entry point, not an import."""

import sys

import pytest

from symbolic.runtime.errors import MissingExtraError, MlsysymError
from symbolic.runtime.extensions import extension


def test_the_generator_registers_explain():
    from symbolic.codegen.explain import explain

    assert extension("explain", "explain") is explain


def test_an_unregistered_name_says_to_reinstall():
    with pytest.raises(MlsysymError, match=r"registers no 'tabulate' in entry-point group mlsysym\.extensions"):
        extension("tabulate", "tabulating")


def test_without_sympy_the_extra_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "sympy", None)  # as if not installed
    extension.cache_clear()
    try:
        with pytest.raises(MissingExtraError, match=r"explain needs the 'generator' extra \(sympy is not installed\)"):
            extension("explain", "explain")
    finally:
        extension.cache_clear()
