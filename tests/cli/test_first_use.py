"""The first hour: ``import mlsysym`` is the runtime API, the documented examples run, and a
missing optional library is named with the extra that installs it."""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_import_mlsysym_gives_the_runtime_api_without_sympy():
    code = ("import sys, mlsysym; "
            "step = mlsysym.Scenarios.MnistTwoLayerTrainingStepOnH100; "
            "assert step.variant(batch_size=64) != step and mlsysym.Q_(1, 'GiB') > mlsysym.Q_(1, 'GB'); "
            "assert issubclass(mlsysym.ScenarioInputError, mlsysym.MlsysymError); "
            "assert mlsysym.Hardware.Cloud.H100 and mlsysym.Datasets.MNIST and mlsysym.SCENARIO_CLASSES; "
            "mlsysym.sweep(step, {'batch_size': [1, 2]}); mlsysym.sensitivity(step, 'compute_time'); "
            "print('sympy' in sys.modules, 'jinja2' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


def test_the_package_ships_mlsysym():
    """The packages are listed in setup.py (test_wheel.py imports mlsysym from the installed wheel)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert '"mlsysym*"' in (ROOT / "setup.py").read_text(encoding="utf-8")
    assert config["project"]["scripts"]["mlsysym"] == "symbolic.cli:main"


BLOCK_SYMPY = "import sys; sys.modules['sympy'] = None; "


@pytest.mark.parametrize("code", [
    "import mlsysym; mlsysym.solve(mlsysym.Scenarios.PhoneFullUpdateWorkingSet, 'parameters', 'total', 1)",
    "import mlsysym; mlsysym.scaling(mlsysym.Scenarios.PhoneFullUpdateWorkingSet, 'total')",
    "import symbolic.analysis.derive",
])
def test_derivations_without_the_generator_extra_name_it(code):
    out = subprocess.run([sys.executable, "-c", BLOCK_SYMPY + code], cwd=ROOT, capture_output=True, text=True,
                         check=False)
    assert out.returncode == 1 and "MissingExtraError" in out.stderr
    assert "pip install 'mlsysym[generator]'" in out.stderr and "sympy" in out.stderr


@pytest.mark.parametrize("command", [["explain", "SmallKernelDispatch", "host_time"],
                                     ["solve", "SmallKernelDispatch", "--for", "dispatch", "--where", "host_time=1ms"],
                                     ["scaling", "HostDispatchScenario", "host_time"]])
def test_cli_commands_without_the_generator_extra_say_which_extra(command):
    code = BLOCK_SYMPY + f"from symbolic.cli import main; sys.exit(main({command!r}))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert out.returncode == 2 and "internal error" not in out.stderr
    assert "pip install 'mlsysym[generator]'" in out.stderr


@pytest.mark.parametrize("module", ["mlsysym", "symbolic.analysis.derive", "symbolic.codegen.explain", "symbolic.runtime.sweep",
                                    "symbolic.runtime.analysis"])
def test_documented_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_classes_have_real_signatures_an_ide_can_read():
    """Each generated class defines its own ``__init__`` with every input as a keyword (so
    static tools and ``help()`` show them), defaults as declared, REQUIRED where none."""
    import inspect

    import generated
    from symbolic.runtime.validation import REQUIRED

    for cls in generated.SCENARIO_CLASSES:
        assert "__init__" in vars(cls), cls.__name__
        params = inspect.signature(cls).parameters
        keywords = [name for name, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY]
        assert keywords == [*cls.input_names(), "name", "description"], cls.__name__
        for spec in cls._specs:
            default = params[spec.name].default
            assert default is REQUIRED if spec.default is REQUIRED else default == spec.default, spec.name
        for node in cls._nodes:
            assert (params[node.name].default is None) if node.optional else params[node.name].default is REQUIRED


LAZY = """
import sys
def loaded():
    return sorted(m for m in sys.modules if m.startswith("generated."))
import generated
assert "symbolic.runtime.records" not in sys.modules
import mlsysym
print(loaded())
from generated import Hardware
node = Hardware.Cloud.H100
print(loaded(), sorted(Hardware.Cloud._built))
generated.Scenarios.MnistTwoLayerTrainingStepOnH100.evaluate()
print(loaded())
print(dir(generated) == sorted(set(dir(generated))), "DecodeScenario" in dir(generated))
"""


def test_importing_builds_nothing_and_a_read_imports_only_what_it_needs():
    """``import generated`` (and ``mlsysym``) imports no scenario module and no catalog tier; one
    node read builds that node only; one registry entry imports its own scenario module only."""
    out = subprocess.run([sys.executable, "-c", LAZY], cwd=ROOT, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    first, after_node, after_entry, listing = out.stdout.splitlines()
    assert first == "[]"
    # the node's links are records of generated.systems
    assert after_node == "['generated.catalog', 'generated.systems'] ['H100']"
    # the step contains a host-dispatch scenario: its module comes along
    assert after_entry == ("['generated.catalog', 'generated.host_dispatch', 'generated.mlp_training_step', "
                           "'generated.registry', 'generated.systems']")
    assert listing == "True True"


def test_every_public_name_resolves_and_an_unknown_one_is_an_attribute_error():
    import generated
    import mlsysym

    for name in generated.__all__:
        assert getattr(generated, name) is getattr(mlsysym, name)
    for module in (generated, mlsysym):
        with pytest.raises(AttributeError, match="no attribute 'Nonesuch'"):
            module.Nonesuch  # noqa: B018
