"""The mlsysym command line, through a subprocess as users run it, plus --set parsing fuzz."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import generated
from generated import MlsysymError, Q_, Scenarios
from symbolic.cli import UsageError, build, main, parse_setting

ROOT = Path(__file__).resolve().parents[2]


def run_process(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "symbolic.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          check=False)


def run(*args: str) -> subprocess.CompletedProcess:
    """``mlsysym ARGS`` in this process: its exit status and what it printed. A fresh interpreter
    per command cost about a second each (sympy and the declarations loaded again for every
    solve); the entry point as users run it is tested through a subprocess below."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as error:  # argparse's usage errors
            status = error.code if isinstance(error.code, int) else 1
    return subprocess.CompletedProcess(list(args), status, out.getvalue(), err.getvalue())


def test_list_and_show_through_the_real_entry_point():
    out = run_process("list")
    assert out.returncode == 0 and "MnistTwoLayerTrainingStepOnH100" in out.stdout
    assert run_process("show", "MnistTwoLayerTrainingStepOnH10").returncode == 2
    assert run_process("frobnicate").returncode == 2


def test_list_and_show():
    out = run("list")
    assert out.returncode == 0 and "MnistTwoLayerTrainingStepOnH100" in out.stdout
    shown = run("show", "MnistTwoLayerTrainingStepOnH100")
    assert shown.returncode == 0
    assert "6.42253 Mflop" in shown.stdout and "host.overhead_ratio" in shown.stdout  # 6,422,528 read in Mflop
    data = json.loads(run("--json", "show", "SmallKernelDispatch").stdout)
    assert data["outputs"]["overhead_ratio"] == {"value": 15.0, "unit": ""}


def test_eval_with_settings():
    out = run("--json", "eval", "MlpTrainingStepScenario", "--from", "MnistTwoLayerTrainingStepOnH100",
              "--set", "batch_size=64", "--set", "dispatch=0.02ms", "--set", "hardware=B200")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["outputs"]["op_flops[matmul1]"]["value"] == 2 * 64 * 784 * 128
    assert data["outputs"]["host.dispatch_time"]["value"] == pytest.approx(5 * 20)
    dense = run("eval", "DenseNetworkScenario", "--set", "layer_widths=784,256,10", "--set", "bytes_per_value=2",
                "--set", "optimizer_bytes_per_parameter=8", "--set", "dataset=MNIST", "--set", "batch_size=100")
    assert dense.returncode == 0 and "600" in dense.stdout  # steps per epoch


def test_a_node_input_that_takes_a_fleet_reads_a_systems_path():
    base = Scenarios.Gpt3PretrainingFrontier8K
    cls = type(base)
    fleet = generated.Systems.Clusters.DgxH100SuperPodSU
    assert build(cls, base, ["fleet=Systems.Clusters.DgxH100SuperPodSU"]) == base.variant(fleet=fleet)
    assert build(cls, base, ["fleet=Cloud.H100"]) == base.variant(fleet=generated.Hardware.Cloud.H100)
    with pytest.raises(UsageError, match="Systems.Clusters.Nowhere"):
        build(cls, base, ["fleet=Systems.Clusters.Nowhere"])
    with pytest.raises(UsageError, match="hardware node"):  # a node input without fleet=True takes no Systems path
        build(type(Scenarios.MnistTwoLayerTrainingStepOnH100), Scenarios.MnistTwoLayerTrainingStepOnH100,
              ["hardware=Systems.Clusters.DgxH100SuperPodSU"])


def test_eval_of_a_registry_name_starts_from_its_inputs():
    out = run("--json", "eval", "Gpt3ThreeDParallel1K", "--set", "pp_size=8", "--set", "dp_size=16")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    # 175e9 parameters x 16 B of training state over 8 tensor x 8 pipeline ranks
    assert data["outputs"]["result.state_per_device"]["value"] == pytest.approx(175e9 * 16 / 64 / 1e9)
    assert data["outputs"]["n_devices"]["value"] == 8 * 8 * 16
    other = run("eval", "Gpt3ThreeDParallel1K", "--from", "MnistTwoLayerTrainingStepOnH100")
    assert other.returncode != 0 and "not a ParallelLayoutScenario" in other.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (("show", "MnistTwoLayerTrainingStepOnH10"), ["did you mean MnistTwoLayerTrainingStepOnH100"]),
        (("eval", "MlpTrainingStepScenario", "--from", "MnistTwoLayerTrainingStepOnH100", "--set", "batch=3"),
         ["did you mean batch_size"]),
        (("eval", "MlpTrainingStepScenario", "--from", "MnistTwoLayerTrainingStepOnH100", "--set", "batch_size=0"),
         ["batch_size", "≥ 1"]),
        (("eval", "MlpTrainingStepScenario", "--from", "MnistTwoLayerTrainingStepOnH100", "--set", "dispatch=3 byte"),
         ["dispatch", "[time]"]),
        (("eval", "MlpTrainingStepScenario", "--from", "MnistTwoLayerTrainingStepOnH100", "--set", "hardware=H1000"),
         ["did you mean H100"]),
        (("solve", "PhoneFullUpdateWorkingSet", "--for", "parameters", "--where", "total=8 s"), ["total"]),
        (("sensitivity", "PhoneFullUpdateWorkingSet", "totl"), ["did you mean total"]),
        (("sweep", "MnistTwoLayerTrainingStepOnH100", "--vary", "batch_size=0..4"), ["batch_size", "≥ 1"]),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_it(args, words):
    out = run(*args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("mlsysym: error:")
    for word in words:
        assert word in out.stderr


def test_bad_usage_exits_2():
    assert run("frobnicate").returncode == 2
    assert run("solve", "PhoneFullUpdateWorkingSet").returncode == 2


def test_sweep_to_csv_and_json(tmp_path):
    target = tmp_path / "sweep.csv"
    out = run("sweep", "MnistTwoLayerTrainingStepOnH100", "--vary", "batch_size=1..4096:log2",
              "--vary", "hidden_width=64,128", "--outputs", "compute_time,memory_time", "--out", str(target))
    assert out.returncode == 0, out.stderr
    rows = list(csv.reader(target.open()))
    assert rows[0] == ["batch_size", "hidden_width", "compute_time [µs]", "memory_time [µs]"]
    assert len(rows) == 1 + 13 * 2
    step = Scenarios.MnistTwoLayerTrainingStepOnH100.variant(batch_size=1, hidden_width=64)
    assert float(rows[1][2]) == pytest.approx(step.compute_time.magnitude, rel=1e-15)
    target = tmp_path / "sweep.json"
    assert run("sweep", "SmallKernelDispatch", "--vary", "device_time=1..100:lin=5", "--out", str(target)).returncode == 0
    data = json.loads(target.read_text())
    assert data["columns"]["overhead_ratio"]["values"][0] == 15.0 and data["varied"] == ["device_time"]


def test_solve_sensitivity_scaling_compare_explain():
    solve = run("solve", "MnistTwoLayerTrainingStepOnH100", "--for", "batch_size", "--where", "compute_time=memory_time")
    assert solve.returncode == 0 and "93.08" in solve.stdout
    fit = json.loads(run("--json", "solve", "PhoneFullUpdateWorkingSet", "--for", "parameters", "--where",
                         "total=8GiB").stdout)
    assert fit["values"] == [pytest.approx(2**33 / 36)]
    ranked = json.loads(run("--json", "sensitivity", "MnistEpochCpuVersusH100", "result.total_time[accelerator]").stdout)
    assert [r["input"] for r in ranked[:4]] == ["network_dataset_training_examples", "network_batch_size",
                                                "ops_per_layer", "dispatch"]
    scaling = run("scaling", "UpdateWorkingSetScenario", "total")
    assert scaling.returncode == 0 and "parameters" in scaling.stdout and "linear" in scaling.stdout
    compared = run("compare", "MnistDenseNetwork", "MnistDenseNetworkLargeBatch")
    assert compared.returncode == 0 and "batch_size" in compared.stdout
    # a list output that changed is listed too (32 -> 1024 rows: 2·b·784·128 = 6422528 -> 205520896 flop)
    layer_flops = next(line for line in compared.stdout.splitlines() if line.startswith("result.matmul_flops_per_layer"))
    assert "[6422528, 524288, 40960] flop" in layer_flops and "[205520896, 16777216, 1310720] flop" in layer_flops
    assert layer_flops.split()[-1] == "changed"
    explained = run("explain", "MnistTwoLayerTrainingStepOnH100", "compute_time")
    assert explained.returncode == 0
    assert "total_flops/peak_rate" in explained.stdout and "(13100608 flop)/(67 Tflop/s)" in explained.stdout and "[flop]" not in explained.stdout


def test_evaluation_commands_do_not_import_sympy():
    code = ("import sys; from symbolic.cli import main; "
            "main(['show', 'MnistTwoLayerTrainingStepOnH100']); "
            "main(['eval', 'HostDispatchScenario', '--set', 'ops_per_block=2', '--set', 'dispatch=1', "
            "'--set', 'launch=1', '--set', 'device_time=3']); "
            "main(['sweep', 'SmallKernelDispatch', '--vary', 'device_time=1..8:log2']); "
            "print('SYMPY' if 'sympy' in sys.modules else 'NO-SYMPY')")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("NO-SYMPY")


TEXTS = st.one_of(st.text(max_size=12), st.sampled_from(
    ["1", "0", "-1", "2.5", "1e400", "nan", "inf", "10us", "3.35 TB/s", "8GiB", "H100", "Cloud.H100", "MNIST",
     "784,128,10", "[1,2]", "none", "fp32", "SmallKernelDispatch", "1 flop", "5 byte/s"]))


@settings(max_examples=500, deadline=None)
@given(cls=st.sampled_from(generated.SCENARIO_CLASSES), data=st.data())
def test_set_parsing_raises_only_project_errors(cls, data):
    base = next(getattr(Scenarios, k) for k in Scenarios if type(getattr(Scenarios, k)) is cls)
    names = list(cls.input_names()) + ["nonsense"]
    settings_ = [f"{data.draw(st.sampled_from(names))}={data.draw(TEXTS)}"
                 for _ in range(data.draw(st.integers(1, 3)))]
    try:
        scenario = build(cls, base, settings_)
        scenario.outputs()
    except (UsageError, MlsysymError):
        pass
    with pytest.raises(UsageError):
        parse_setting(cls, "no equals sign")


# -- strict values: one number and an optional unit, nothing evaluated ----------------------
from symbolic.cli.values import number, parse_vary  # noqa: E402


@pytest.mark.parametrize("text", ["4,8", "32 64", "9**9**9", "2*3", "1e400", "-1e999", "1e-400", "-0.5e-999 ms", "inf", "nan", "1/2", "(3)",
                                  "10 us us2", "3 ** 2 ms", "", "0x10", "1_000", "ms", "5 ms ms**99", "1e99999999"])
def test_number_refuses_anything_but_one_number_with_a_unit(text):
    with pytest.raises(UsageError):
        number(text)


@pytest.mark.parametrize("text, magnitude, unit", [("64", 64, None), ("-2.5e-3", -2.5e-3, None), (".5", 0.5, None),
                                                   ("10us", 10, "µs"), ("3.35 TB/s", 3.35, "TB/s"),
                                                   ("8GiB", 8, "GiB"), ("5 pJ/byte", 5, "pJ/byte"),
                                                   ("2 m**2", 2, "m**2"), ("1e3 flop/s", 1000.0, "flop/s")])
def test_number_reads_one_number_with_an_optional_unit(text, magnitude, unit):
    value = number(text)
    if unit is None:
        assert value == magnitude and type(value) in (int, float)
    else:
        assert value.magnitude == magnitude and value.units == Q_(1, unit).units


@settings(max_examples=300, deadline=2000)
@given(text=st.text(alphabet="0123456789.,eE+-*/^ ()µsmkKGiBbytflopTM_x", max_size=14))
def test_number_never_hangs_and_raises_only_usage_errors(text):
    """Any text: a number, a Quantity, or a UsageError, quickly (the deadline catches a hang)."""
    try:
        value = number(text)
    except UsageError:
        return
    assert type(value) in (int, float) or hasattr(value, "units")


@pytest.mark.parametrize("setting", ["batch_size=4,8", "batch_size=32 64", "batch_size=9**9**9", "dispatch=1e400 us"])
def test_set_values_that_pint_would_evaluate_are_usage_errors(setting):
    out = run("eval", "MlpTrainingStepScenario", "--from", "MnistTwoLayerTrainingStepOnH100", "--set", setting)
    assert out.returncode == 2, out.stdout
    assert setting.split("=")[0] in out.stderr and out.stderr.count("\n") == 1


def test_vary_accepts_units_and_lists_with_units():
    cls = Scenarios.SmallKernelDispatch.__class__
    name, values = parse_vary(cls, "dispatch=1us..10us:lin=4")
    assert name == "dispatch" and values.tolist() == [1.0, 4.0, 7.0, 10.0]
    assert parse_vary(cls, "dispatch=1us,5ms")[1].tolist() == [1.0, 5000.0]
    assert parse_vary(cls, "dispatch=1ms..3ms:step=1ms")[1].tolist() == [1000.0, 2000.0, 3000.0]
    assert parse_vary(cls, "dispatch=1..8:log2")[1].tolist() == [1.0, 2.0, 4.0, 8.0]
    assert parse_vary(cls, "dispatch=0..1:step=0.25")[1].tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_a_stepped_range_ends_at_its_stop():
    """a..b:step=s is start + k·s for every k with start + k·s ≤ b: 1..3.6 is 1, 2, 3 (not 4),
    and a quotient that rounds below a whole number (0.7 / 0.1) still reaches b, not past it."""
    cls = Scenarios.SmallKernelDispatch.__class__
    assert parse_vary(cls, "dispatch=1..3.6")[1].tolist() == [1.0, 2.0, 3.0]
    assert parse_vary(cls, "dispatch=0..1:step=0.3")[1].tolist() == pytest.approx([0.0, 0.3, 0.6, 0.9])
    tenths = parse_vary(cls, "dispatch=0..0.7:step=0.1")[1]
    assert len(tenths) == 8 and tenths[-1] == 0.7
    assert parse_vary(cls, "dispatch=2..2")[1].tolist() == [2.0]
    assert parse_vary(cls, "dispatch=1ms..2.5ms:step=1ms")[1].tolist() == [1000.0, 2000.0]


@pytest.mark.parametrize("vary, words", [
    ("dispatch=1 flop..2 flop", ["dispatch", "[time]"]),
    ("dispatch=10..1", ["empty"]),
    ("dispatch=1..1e300:step=1e-300", ["more than a sweep holds"]),
    ("dispatch=1..2:lin=1e12", ["whole number"]),
    ("dispatch=1..2:lin=99999999999", ["more than a sweep holds"]),
    ("dispatch=1..2:step=0", ["step must be positive"]),
    ("dispatch=5..7:log2", ["no values"]),
    ("dispatch=1..inf", ["cannot read 'inf'"]),
    ("dispatch=", ["expected a range"]),
    ("dispatch=1,,2", ["expected a range"]),
    ("batch_sise=1..2", ["did you mean batch_size", "numeric input"]),
    ("nope=1..2", ["known: batch_size, input_width", "numeric input"]),
    ("hardware=1..2", ["numeric input"]),
    ("batch_size=1.." + "9" * 400, ["beyond the range of double precision"]),  # was an internal OverflowError
    ("batch_size=1," + "9" * 400, ["beyond the range of double precision"]),
])
def test_bad_ranges_are_usage_errors_naming_the_input(vary, words):
    with pytest.raises(UsageError) as caught:
        parse_vary(Scenarios.MnistTwoLayerTrainingStepOnH100.__class__, vary)
    for word in words:
        assert word in str(caught.value), str(caught.value)


def test_too_large_a_grid_and_an_unwritable_out_fail_before_the_sweep(tmp_path):
    big = run("sweep", "SmallKernelDispatch", "--vary", "dispatch=1..1e6:lin=1000000", "--vary", "launch=1..1000")
    assert big.returncode == 2 and "1,000,000,000 points" in big.stderr and "--outputs" in big.stderr
    for target in (tmp_path / "missing" / "x.csv", tmp_path):
        out = run("sweep", "SmallKernelDispatch", "--vary", "dispatch=1..3", "--out", str(target))
        assert out.returncode == 2 and "--out" in out.stderr, out.stderr
    directory = tmp_path / "x.csv"
    directory.mkdir()
    out = run("sweep", "SmallKernelDispatch", "--vary", "dispatch=1..3", "--out", str(directory))
    assert out.returncode == 2 and "cannot be written" in out.stderr


def test_one_naming_and_one_unit_spelling_across_show_sweep_csv_and_json(tmp_path):
    shown = json.loads(run("--json", "show", "MnistEpochCpuVersusH100").stdout)["outputs"]
    target = tmp_path / "s.json"
    assert run("sweep", "MnistEpochCpuVersusH100", "--vary", "dispatch=1us,2us", "--out", str(target)).returncode == 0
    columns = json.loads(target.read_text())["columns"]
    numeric = {k: v for k, v in shown.items() if isinstance(v["value"], (int, float))}
    assert set(numeric) <= set(columns)
    for path, entry in numeric.items():
        assert columns[path]["unit"] == entry["unit"], path
    step = Scenarios.MnistTwoLayerTrainingStepOnH100
    from symbolic.runtime.analysis import flat_outputs
    for path, (_, unit) in flat_outputs(step).items():  # the CLI's spelling is Python's own
        if unit:
            assert unit == f"{Q_(1, unit).units:~P}", path
    assert f"{step.total_bytes.units:~P}" == flat_outputs(step)["total_bytes"][1] == "B"


# -- list X, show X outputs, real signatures ---------------------------------------------------
def test_list_a_class_shows_its_inputs_and_outputs():
    out = run("list", "MlpTrainingStepScenario")
    assert out.returncode == 0, out.stderr
    for word in ("batch_size", "an integer ≥ 1", "dispatch", "µs", "hardware", "a hardware node", "compute_time",
                 "op_flops[matmul1]", "host.host_time"):
        assert word in out.stdout, word
    data = json.loads(run("--json", "list", "SmallKernelDispatch").stdout)
    assert data["class"] == "HostDispatchScenario"
    names = [row["name"] for row in data["inputs"]]
    assert names == list(generated.HostDispatchScenario.input_names())
    assert {"path": "host_time", "unit": "µs"} in data["outputs"]
    by_name = {row["name"]: row for row in data["inputs"]}
    assert (by_name["launches_per_block"]["default"], by_name["launches_per_block"]["default_rule"]) == (
        None, "ops_per_block") and by_name["launches_per_block"]["required"] is False
    assert by_name["blocks"]["default"] == 1 and by_name["blocks"]["kind"] == "integer"
    assert run("list", "NoSuchThing").returncode == 2


def test_show_picks_outputs_by_path_or_prefix():
    data = json.loads(run("--json", "show", "MnistTwoLayerTrainingStepOnH100", "compute_time", "host",
                          "op_flops[relu]").stdout)["outputs"]
    assert "compute_time" in data and "op_flops[relu]" in data and "op_flops[matmul1]" not in data
    assert {k for k in data if k.startswith("host.")} == {k for k in data if "." in k} and "host.host_time" in data
    assert "memory_time" not in data
    bad = run("show", "MnistTwoLayerTrainingStepOnH100", "compute_tim")
    assert bad.returncode == 2 and "did you mean compute_time" in bad.stderr


def test_the_cli_page_examples_are_the_real_output():
    """Every ``console`` block of the generated CLI page is run and compared exactly."""
    import contextlib
    import io
    import re
    import shlex

    from symbolic.cli import main

    page = (ROOT / "generated" / "docs" / "cli.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```console\n\$ mlsysym (.*?)\n(.*?)```", page, re.S)
    assert len(blocks) >= 3
    for command, expected in blocks:
        captured = io.StringIO()
        with contextlib.redirect_stdout(captured):
            assert main(shlex.split(command)) == 0, command
        assert captured.getvalue() == expected, command


# -- catalog entries and keyed lists in --set; catalogs in list ------------------------------
def test_set_reads_a_workload_by_key_path_or_tier_path():
    """``--set workload=`` takes a workload's key, its tier path or its full path, as a dataset or a
    node input takes theirs; the entry is the catalog's own (same object as in Python)."""
    from generated import Models

    cls = type(Scenarios.Llama3_70B_DecodeH100)
    for text in ("Llama3_8B", "Language.Llama3_8B", "Models.Language.Llama3_8B", " Llama3_8B "):
        assert parse_setting(cls, f"workload={text}") == ("workload", Models.Language.Llama3_8B)
    step = build(cls, Scenarios.Llama3_70B_DecodeH100, ["workload=Llama3_8B"])
    assert step.result.weight_bytes.to("B").magnitude == Models.Language.Llama3_8B.parameters * 2


@pytest.mark.parametrize("text, words", [("Llama9", ["workload", "'Llama9'", "did you mean", "Llama3_8B"]),
                                         ("MNIST", ["workload", "mlsysym list Models"]),
                                         ("Vision.Llama3_8B", ["workload"]),
                                         ("Models.Language", ["workload"])])
def test_set_refuses_an_unknown_workload_naming_it(text, words):
    with pytest.raises(UsageError) as error:
        parse_setting(type(Scenarios.Llama3_70B_DecodeH100), f"workload={text}")
    assert all(word in str(error.value) for word in words), str(error.value)


def test_set_reads_a_keyed_list_as_names_and_numbers():
    from symbolic.runtime.scenario import ScenarioBase
    from symbolic.runtime.validation import ListSpec

    class Paths(ScenarioBase):  # only what --set parsing reads: the declared inputs
        _specs = (ListSpec("alphas", "µs", keyed=True),)
        _input_order = ("alphas",)

    name, value = parse_setting(Paths, "alphas=a:1, 'b': 2 ms")
    assert name == "alphas" and list(value) == ["a", "b"] and value["a"] == 1 and value["b"] == Q_(2, "ms")
    assert parse_setting(Paths, "alphas={x: 3}")[1] == {"x": 3}
    for bad, word in (("a:1,a:2", "twice"), ("a:1,b", "entry \\[1\\]"), (":3", "entry \\[0\\]"),
                      ("a:4,8", "entry \\[1\\]"), ("a:4 8", "'a'")):
        with pytest.raises(UsageError, match=word):
            parse_setting(Paths, f"alphas={bad}")


@pytest.mark.parametrize("catalog, path", [("Models", "Models.Language.Llama3_70B"), ("Hardware", "Hardware.Cloud.H100"),
                                           ("Datasets", "Datasets.MNIST"), ("Systems", "Systems.Clusters."),
                                           ("Constants", "Constants.ByteWidths.FP16")])
def test_list_prints_a_catalogs_paths(catalog, path):
    out = run("--json", "list", catalog)
    assert out.returncode == 0, out.stderr
    paths = [entry["path"] for entry in json.loads(out.stdout)["entries"]]
    assert any(p.startswith(path) for p in paths) and all(p.startswith(catalog + ".") for p in paths)


@pytest.mark.parametrize("name, output, numbers", [
    # a sum over a list output whose range (1..layers) the instance fixes: every entry shown
    ("MnistDenseNetwork", "result.weights", "result.weights = (100352) + (8192) + (640)"),
    # a sum over list inputs (the closed form's sum): no symbol is left
    ("MnistDenseNetwork", "result.parameters", "result.parameters = (202) + (109184)"),
])
def test_explain_writes_list_entries_and_sums_out_as_numbers(name, output, numbers):
    out = run("--json", "explain", name, output)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["numbers"] == numbers


def test_unrolled_writes_out_fixed_ranges_only():
    import sympy

    from symbolic.analysis import derive
    from symbolic.model.functions import Len, MaxOver

    w, n = sympy.IndexedBase("w"), sympy.Symbol("n", integer=True)
    i, j = sympy.symbols("i j", integer=True)
    total = sympy.Sum(w[i], (i, 0, Len(w) - 1))
    assert derive.unrolled(total, {}, {w: 3}) == w[0] + w[1] + w[2]
    assert derive.unrolled(total, {}, {}) == total  # length unknown: left as is
    assert derive.unrolled(total, {}, {w: 17}) == total  # too long to write out
    assert derive.unrolled(MaxOver(w[i], (i, 1, n)), {n: 2}, {}) == sympy.Max(w[1], w[2])
    nested = sympy.Sum(sympy.Sum(w[j], (j, 0, i)), (i, 0, 1))
    assert derive.unrolled(nested, {}, {}) == w[0] + w[0] + w[1]


@pytest.mark.parametrize("argv, message", [
    (["sweep", "MnistTwoLayerTrainingStepOnH100", "--vary", "batch_size=1..3", "--vary", "batch_size=4..5"],
     "--vary batch_size is given twice"),
    (["search", "HierarchicalAllReduce8x8DgxH100", "--vary", "n_nodes=1..2", "--vary", "n_nodes=3",
      "--minimize", "n_nodes"], "--vary n_nodes is given twice"),
    (["eval", "MlpTrainingStepScenario", "--from", "MnistTwoLayerTrainingStepOnH100", "--set", "batch_size=1",
      "--set", "batch_size=2"], "--set batch_size is given twice"),
    (["sweep", "MnistTwoLayerTrainingStepOnH100", "--vary", "dispatch=1e305 h,1 h"],
     "--vary dispatch: '1e305 h' is beyond the range of double precision in µs"),
    (["sweep", "PeakPlannedTrainingBudget", "--vary", "planned_device_hours=2.3e-308 fs"],
     "'2.3e-308 fs' is below the range of double precision in h"),
    (["solve", "MnistTwoLayerTrainingStepOnH100", "--for", "batch_size", "--where", "compute_time <= 1 ms"],
     "write one '=' (output=value), not a comparison"),
    (["solve", "MnistTwoLayerTrainingStepOnH100", "--for", "batch_size", "--where", "compute_time==1 ms"],
     "not a comparison"),
    (["solve", "MnistTwoLayerTrainingStepOnH100", "--for", "batch_size", "--where", "compute_time=memory_tim"],
     "'memory_tim'; did you mean memory_time"),
])
def test_repeated_inputs_lost_values_and_inequalities_are_usage_errors(argv, message, capsys):
    """Each used to pass silently (the later --vary replaced the first) or fail unclearly
    ('got inf', "no scalar output 'compute_time <'", "cannot read 'memory_tim' as one number")."""
    from symbolic.cli import main

    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_solve_in_python_reads_a_quantity_string_as_the_command_line_does():
    """``"8 GiB"`` was read as an output's name; it is a value now, read by the parser of
    ``--where total=8GiB``. By hand: total = P·b·(a + m + 2) = P·4 B·(5 + 2 + 2) = 36 B·P, so
    8 GiB = 2**33 B gives P = 2**33 / 36."""
    import mlsysym
    from symbolic.analysis.derive import DerivationError

    entry = Scenarios.PhoneFullUpdateWorkingSet
    for text in ("8 GiB", "8GiB", " 8 GiB ", "8192 MiB"):
        assert mlsysym.solve(entry, "parameters", "total", text).values == [pytest.approx(2**33 / 36, rel=1e-15)], text
    assert mlsysym.solve(entry, "parameters", "total", "360").values == [pytest.approx(1e7)]  # MB, the display unit
    with pytest.raises(DerivationError, match="did you mean total"):
        mlsysym.solve(entry, "parameters", "total", "totl")
    with pytest.raises(DerivationError, match="'GiBB' in '8 GiBB' is not a known unit"):
        mlsysym.solve(entry, "parameters", "total", "8 GiBB")
    with pytest.raises(DerivationError, match="cannot read '4,8' as one number"):
        mlsysym.solve(entry, "parameters", "total", "4,8")
    with pytest.raises(DerivationError, match="total is MB; got 8 s"):
        mlsysym.solve(entry, "parameters", "total", "8 s")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from symbolic.cli import main

    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_solve_takes_set_on_an_entry_and_on_a_class(capsys):
    """Decode is compute-bound where 2·P·B/peak = P·b/bw, at B = peak·b / (2·bw): with int8
    weights (b = 1 B) half the fp16 batch. From a class, every input by --set: total =
    P·b·(a + m + 2) = P·2 B·2 with a = m = 0, so 8 GiB = 2**33 B at P = 2**31."""
    from generated import Hardware

    h100 = Hardware.Cloud.H100
    crossing = (h100.peak_flops * Q_(1, "byte") / Q_(1, "flop") / (2 * h100.memory_bandwidth)).to("").magnitude
    status, out, err = cli(capsys, "--json", "solve", "Llama3_70B_DecodeH100", "--set", "precision=int8",
                           "--for", "batch_size", "--where", "result.compute_time=result.memory_time")
    assert status == 0, err
    assert json.loads(out)["values"] == [pytest.approx(crossing, rel=1e-12)]
    status, out, err = cli(capsys, "--json", "solve", "UpdateWorkingSetScenario", "--set", "parameters=1",
                           "--set", "bytes_per_param=2B", "--set", "optimizer_moments=0", "--set", "activation_factor=0",
                           "--set", "activation_factor_high=0", "--for", "parameters", "--where", "total=8GiB")
    assert status == 0, err
    assert json.loads(out)["values"] == [2.0**31]


def test_sensitivity_explain_and_scaling_take_set(capsys):
    """host_time = dispatch·(forward_ops + 1) + launch·(backward_ops + forward_ops); the entry
    has 4 forward and 5 backward operators at 10 µs dispatch and 5 µs launch. With launch = 0
    the host time is all dispatch: its elasticity in dispatch is exactly 1 (at the entry,
    50 / 95), explain gives 10 µs · 5 = 50 µs, and backward_ops no longer moves it."""
    entry = "MnistTwoLayerTrainingStepOnH100"
    status, out, err = cli(capsys, "--json", "sensitivity", entry, "host.host_time", "--set", "launch=0")
    assert status == 0, err
    elasticity = {row["input"]: row["elasticity"] for row in json.loads(out)}
    assert elasticity["dispatch"] == pytest.approx(1.0, rel=1e-12) and elasticity.get("launch") in (None, 0)
    status, out, err = cli(capsys, "--json", "sensitivity", entry, "host.host_time")
    assert {row["input"]: row["elasticity"] for row in json.loads(out)}["dispatch"] == pytest.approx(50 / 95)
    status, out, err = cli(capsys, "explain", entry, "host.host_time", "--set", "launch=0")
    assert status == 0 and "  result       host.host_time = 50 µs" in out.splitlines(), out
    status, out, err = cli(capsys, "--json", "scaling", entry, "host.host_time", "--set", "launch=0")
    assert status == 0, err
    # host time is linear in each host input: the dispatch term's, and backward()'s own (its nodes, both costs)
    assert json.loads(out)["per_input"] == {"forward_ops": "1", "dispatch": "1", "autograd_nodes": "1",
                                            "backward_fixed": "1", "backward_per_node": "1"}
    status, out, err = cli(capsys, "--json", "scaling", entry, "host.host_time")
    assert json.loads(out)["per_input"] == {"forward_ops": "1", "backward_ops": "1", "dispatch": "1", "launch": "1",
                                            "autograd_nodes": "1", "backward_fixed": "1", "backward_per_node": "1"}


@pytest.mark.parametrize("argv, message", [
    (["sensitivity", "MnistTwoLayerTrainingStepOnH100", "host.host_time", "--set", "lanch=0"], "did you mean launch"),
    (["explain", "MnistTwoLayerTrainingStepOnH100", "host.host_time", "--set", "launch=5 byte"], "launch"),
    (["scaling", "MnistTwoLayerTrainingStepOnH100", "host.host_time", "--set", "launch=4,8"], "cannot read '4,8'"),
    (["solve", "MnistTwoLayerTrainingStepOnH100", "--set", "dispatch=1us", "--set", "dispatch=2us", "--for",
      "batch_size", "--where", "compute_time=memory_time"], "--set dispatch is given twice"),
    (["solve", "DecodeScenario", "--set", "tp_size=2", "--for", "batch_size", "--where", "result.compute_time=1ms"],
     "'workload'"),
    (["scaling", "DecodeScenari", "result.memory_time", "--set", "tp_size=2"], "did you mean DecodeScenario"),
    (["solve", "PhoneFullUpdateWorkingSet", "--for", "parameters", "--where", "total=totl"], "did you mean total"),
])
def test_set_on_the_analysis_commands_refuses_bad_input_with_exit_2(argv, message, capsys):
    status, _, err = cli(capsys, *argv)
    assert status == 2 and message in err, err


def test_json_output_is_strict_even_for_a_non_finite_number():
    """json.dumps writes NaN and Infinity, which are not JSON; the CLI writes them as strings."""
    import math

    from generated import Q_
    from symbolic.cli.output import json_text

    data = {"a": math.inf, "b": [float("nan"), 1.5], "q": Q_(-math.inf, "ms"), "n": __import__("numpy").float64("inf")}
    parsed = json.loads(json_text(data), parse_constant=lambda token: pytest.fail(f"non-JSON token {token}"))
    assert parsed == {"a": "inf", "b": ["nan", 1.5], "q": {"value": "-inf", "unit": "ms"}, "n": "inf"}


@pytest.mark.parametrize("argv, flag", [
    (["sweep", "MnistTwoLayerTrainingStepOnH100", "--vary", "batch_size=1,2", "--outputs", "compute_time",
      "--outputs", "memory_time"], "--outputs"),
    (["solve", "MnistTwoLayerTrainingStepOnH100", "--for", "batch_size", "--for", "hidden_width", "--where",
      "compute_time=memory_time"], "--for"),
    (["solve", "MnistTwoLayerTrainingStepOnH100", "--for", "batch_size", "--where", "compute_time=memory_time",
      "--where", "compute_time=1ms"], "--where"),
    (["search", "Llama2_70B_DecodeH100", "--vary", "tp_size=1..8:log2", "--minimize", "result.memory_time",
      "--top", "3", "--top", "1"], "--top"),
    (["eval", "MlpTrainingStepScenario", "--from", "MnistTwoLayerTrainingStepOnH100", "--from",
      "MnistTwoLayerTrainingStepOnH100"], "--from"),
])
def test_a_single_valued_option_given_twice_is_a_usage_error(argv, flag, capsys):
    """argparse keeps the last value in silence: --outputs a --outputs b printed only b, --for x
    --for y solved for y, --top 3 --top 1 showed one row."""
    from symbolic.cli import main

    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert f"{flag} is given twice; give it once" in capsys.readouterr().err


def test_sweep_and_compare_take_set_as_eval_does():
    # sweep on an entry with --set on top gives what eval gives for the same settings
    swept = json.loads(run("--json", "sweep", "MnistTwoLayerTrainingStepOnH100", "--set", "hardware=B200",
                           "--vary", "batch_size=64", "--outputs", "compute_time").stdout)
    shown = json.loads(run("--json", "eval", "MnistTwoLayerTrainingStepOnH100", "--set", "hardware=B200",
                           "--set", "batch_size=64").stdout)["outputs"]
    assert swept["columns"]["compute_time"]["values"] == [pytest.approx(shown["compute_time"]["value"])]
    # the B200 changes the value: --set was not ignored
    default = json.loads(run("--json", "sweep", "MnistTwoLayerTrainingStepOnH100", "--vary", "batch_size=64",
                             "--outputs", "compute_time").stdout)
    assert default["columns"]["compute_time"]["values"] != swept["columns"]["compute_time"]["values"]
    both = run("sweep", "MnistTwoLayerTrainingStepOnH100", "--set", "batch_size=3", "--vary", "batch_size=1,2")
    assert both.returncode == 2 and "batch_size is given to both --vary and --set" in both.stderr
    # compare an entry against itself with one input changed: MnistDenseNetwork has batch 32; at 1024
    # rows the first layer's forward matmul is 2·1024·784·128 = 205520896 flop
    compared = run("compare", "MnistDenseNetwork", "--set", "batch_size=1024")
    assert compared.returncode == 0 and "MnistDenseNetwork with batch_size=1024" in compared.stdout
    assert "205520896" in compared.stdout
    alone = run("compare", "MnistDenseNetwork")
    assert alone.returncode == 2 and "--set" in alone.stderr
