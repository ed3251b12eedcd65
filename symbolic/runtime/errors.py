"""The project's errors: one base class and a few precise subclasses.

Runtime errors subclass ``ValueError`` (or ``TypeError`` for wrong types) so that code
catching the builtin classes keeps working; every message names the scenario, the
input, the value and what was expected.
"""


class MlsysymError(Exception):
    """Base class of every error raised on purpose by mlsysym."""


class ScenarioInputError(MlsysymError, ValueError):
    """An input value is outside its declared domain, of the wrong unit, or unknown."""


class InputTypeError(ScenarioInputError, TypeError):
    """An input value has the wrong type (a string for a count, a bool for a number...)."""


class MissingInputError(ScenarioInputError):
    """A required input was not given, or an optional one that an output needs."""


class InfeasibleError(ScenarioInputError):
    """The inputs describe a setup that cannot run (state larger than the memory it must fit in),
    and an output that only a running setup has was read; the message names need, have and inputs."""


class DeclarationError(MlsysymError):
    """A scenario declaration is malformed (found when the generator runs)."""


class UnitMismatchError(DeclarationError):
    """An output's dimension differs from the dimension of its declared unit."""


class DuplicateNameError(DeclarationError):
    """Two declarations of one scenario share a name."""


class UndeclaredSymbolError(DeclarationError):
    """An expression uses a symbol that is neither an input nor an output above it."""


class CycleError(DeclarationError):
    """Outputs are defined in terms of each other."""


class UnsupportedNodeError(DeclarationError):
    """An expression holds a sympy node the dimension check and printers do not support."""


class UndefinedOutputError(DeclarationError):
    """An output may divide by zero at an input the domains allow."""


class MissingExtraError(MlsysymError, ImportError):
    """A feature needs an optional dependency group that is not installed."""

    def __init__(self, feature: str, extra: str = "generator", missing: str = "") -> None:
        super().__init__(f"{feature} needs the '{extra}' extra{f' ({missing} is not installed)' if missing else ''}: "
                         f"pip install 'mlsysym[{extra}]'")


def require_extra(feature: str, extra: str = "generator") -> None:
    """Raise ``MissingExtraError`` naming the extra when one of its libraries is missing."""
    from importlib.util import find_spec

    libraries = {"generator": ("sympy", "jinja2")}[extra]
    for library in libraries:
        try:
            found = find_spec(library) is not None
        except (ImportError, ValueError):  # a module set to None in sys.modules
            found = False
        if not found:
            raise MissingExtraError(feature, extra, library)


def a_or_an(name: str) -> str:
    """``name`` with its indefinite article, for messages: "an ActivationMemoryScenario", "a HardwareNode"."""
    return f"{'an' if name[:1].upper() in 'AEIOU' else 'a'} {name}"
