"""Compile break-even: the work that repays a compile, and an experiment that recompiles."""

from symbolic.model import Fits, Input, Instance, Output, Q, Question, Scenario, Series, Sweep, decades


class CompileBreakevenScenario(Scenario):
    """Eager against compiled execution: the items that repay `compile_time`.

    Compiled code processes items at `compiled_rate`, eager code at `eager_rate`; each
    item saves the difference of the per-item times, so a compile pays for itself after
    `compile_time` over that saving. An experiment of `experiment_items` items that changes
    the code `recompiles` times pays one compile per change.
    """

    assumptions = "Fixed per-item rates; every recompile costs the full `compile_time`; no warm-up beyond it."
    excludes = "Compile caches, partial recompilation, and graph breaks that fall back to eager."
    references = (
        "Ansel et al., PyTorch 2: faster machine learning through dynamic Python bytecode transformation and "
        "graph compilation, ASPLOS 2024 (compile time against steady-state speedup).",
    )
    differs = {
        "breakeven_items": "exists only where `compiled_rate` exceeds `eager_rate`: the reference returns a negative "
                           "count when compiling is slower and divides by zero when the rates are equal. Then no "
                           "number of items repays the compile; every other output stays available and "
                           "`compile_pays_off` is False.",
        "experiment_items": "at least 1: an experiment of no items has no `experiment_slowdown` (the reference "
                            "divides by zero).",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.ResNet50CompileBreakeven
>>> round(s.breakeven_items)
133607
>>> round(s.experiment_slowdown, 4)
44.1744
"""

    main_outputs = ("breakeven_items", "speedup", "experiment_slowdown")
    # a compiled path slower than eager loses time on every item (and then never pays off)
    bounds = {"saving_per_item": (float("-inf"), float("inf"))}
    chart = Sweep(
        instance="ResNet50CompileBreakeven", input="experiment_items", values=decades(3, 8),
        series=(Series("experiment_eager", "eager"), Series("experiment_compiled_total", "compiled, with recompiles"),
                Series("experiment_compiled_running", "compiled, running only", dashed=True)),
        xlabel="items in the experiment", ylabel="experiment time [s]",
        caption="Eager and compiled time of an experiment against its length, with 10 recompiles: compiling pays "
                "only for long experiments.")
    questions = (Question(solve_for="experiment_items", where="experiment_compiled_total", equals="experiment_eager"),
                 Question(solve_for="compile_time", where="breakeven_items", equals="10000"))

    eager_rate = Input("1/s", positive=True, symbol="e", doc="Items per second, eager.")
    compiled_rate = Input("1/s", positive=True, symbol="c", doc="Items per second, compiled.")
    compile_time = Input("s", nonnegative=True, symbol="t_c", doc="Time of one compile.")
    experiment_items = Input(integer=True, positive=True, default=None, symbol="x",
                             doc="Items processed by one experiment; optional, needed by the `experiment_*` outputs.")
    recompiles = Input(integer=True, nonnegative=True, default=None, symbol="k",
                       doc="Compiles the experiment pays (code changes); optional, needed by "
                           "`experiment_compiled_total` and `experiment_slowdown`.")

    eager_item_time = Output(1 / eager_rate, "ms", doc="Time of one item, eager.")
    compiled_item_time = Output(1 / compiled_rate, "ms", doc="Time of one item, compiled.")
    saving_per_item = Output(eager_item_time - compiled_item_time, "ms", doc="Time compiling saves on each item.")
    breakeven_items = Output(compile_time / saving_per_item, doc="Items after which one compile has paid for itself.")
    compile_pays_off = Fits(eager_rate < compiled_rate, "a compile is repaid only by a compiled path faster than "
                            "eager (compiled_rate above eager_rate)", unit="1/s", guards=(breakeven_items,))
    speedup = Output(compiled_rate / eager_rate, doc="Compiled over eager throughput.")
    experiment_eager = Output(experiment_items / eager_rate, "s", doc="The experiment run eagerly.")
    experiment_compiled_running = Output(experiment_items / compiled_rate, "s",
                                         doc="The experiment compiled, running time only.")
    experiment_compiled_total = Output(recompiles * compile_time + experiment_compiled_running, "s",
                                       doc="The experiment compiled, with a compile per code change.")
    experiment_slowdown = Output(experiment_compiled_total / experiment_eager,
                                 doc="Compiled over eager time of the experiment (above 1: compiling lost).")


ResNet50CompileBreakeven = Instance(
    CompileBreakevenScenario,
    name="ResNet-50 training: eager against torch.compile",
    description="ResNet-50 at 1450 images/s eager and 2150 images/s compiled, a 30 s compile; an experiment of "
                "10,000 images that changes the code 10 times.",
    eager_rate=Q("1450 / s"),
    compiled_rate=Q("2150 / s"),
    compile_time=Q("30 s"),
    experiment_items=10000,
    recompiles=10,
)
