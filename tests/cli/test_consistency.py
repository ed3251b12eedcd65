"""Issue 42 item 3: the inconsistencies a user trips on, each run as a user runs it (exit status, text)."""

from __future__ import annotations

import pytest

from generated import Hardware, ScenarioInputError, Scenarios
from symbolic.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def row(text: str, name: str) -> str:
    line = next(line for line in text.splitlines() if line.startswith(name + "  "))
    return line[len(name):].strip()


def test_eval_takes_output_names_as_show_does(capsys) -> None:
    status, out, _ = run(capsys, "eval", "DecodeScenario", "--from", "Llama3_70B_DecodeH100", "--set",
                         "workload=Llama3_8B", "result.memory_time", "fits")
    assert status == 0
    outputs = out.split("output", 1)[1].splitlines()[2:4]
    # 8.03e9 parameters x 2 byte / 3.35e12 byte/s = 4.794 ms
    assert outputs == ["result.memory_time  4.79403 ms", "fits                True"]
    status, _, err = run(capsys, "eval", "DecodeScenario", "--from", "Llama3_70B_DecodeH100", "nonsense")
    assert status == 2 and "unknown output 'nonsense'" in err


def test_a_variant_is_not_titled_by_the_entry_it_started_from(capsys) -> None:
    _, out, _ = run(capsys, "eval", "DecodeScenario", "--from", "Llama3_70B_DecodeH100", "--set",
                    "workload=Mixtral_8x7B", "fits")
    assert out.splitlines()[0] == "DecodeScenario: from Llama3_70B_DecodeH100, with workload=Mixtral_8x7B"


@pytest.mark.parametrize("entry", ["Llama3_70B_Fp8DecodeH100", "Llama3_70B_DecodeTwoH100", "Llama3_70B_Fp8ServingH100"])
def test_the_flagship_has_entries_that_run(capsys, entry: str) -> None:
    status, out, _ = run(capsys, "show", entry)
    assert status == 0 and "does not fit" not in out and row(out, "fits") == "True"


def test_solve_on_a_flagship_entry_that_runs(capsys) -> None:
    status, out, _ = run(capsys, "solve", "Llama3_70B_Fp8DecodeH100", "--for", "batch_size", "--where",
                         "result.compute_time=result.memory_time")
    # t_c = B·2P/1979e12 = t_m = P/3.35e12  ->  B = 1979e12 / (2 · 3.35e12) = 295.373
    assert status == 0 and "batch_size = 295.373" in out
    assert out.splitlines()[0] == ("batch_size with result.compute_time=result.memory_time (symbols in base units: "
                                   "s, B, flop):")  # no "[1]" for a count


def test_solve_prints_an_optional_inputs_test_as_words() -> None:
    import sympy

    from symbolic.cli.derivation import readable_math
    from symbolic.model.functions import Given

    segments, x = sympy.symbols("K x", positive=True)
    assert readable_math(~Given(segments)) == "K not given"
    assert readable_math(sympy.And(Given(segments), x > 1)) == "K given & (x > 1)"
    assert "Given" not in readable_math(sympy.Piecewise((x, Given(segments)), (1, True)))


def test_where_takes_a_yes_no_output_alone(capsys) -> None:
    args = ("search", "Llama3_70B_DecodeH100", "--vary", "tp_size=1..8:log2", "--minimize", "tp_size")
    status, out, _ = run(capsys, *args, "--where", "fits")
    assert status == 0 and "3 feasible" in out  # tp 2, 4, 8: 141.2 GB / tp <= 85.9 GB
    assert out.splitlines()[3].split()[-1] == "True"  # a yes/no printed as a word, as show prints it
    status, out, _ = run(capsys, *args, "--where", "not fits")
    assert status == 0 and "1 feasible" in out


def test_sweep_prints_a_choice_by_name(capsys) -> None:
    status, out, _ = run(capsys, "sweep", "Llama3_70B_Int8DecodeH100", "--vary", "batch_size=1..4:log2",
                         "--outputs", "result.bottleneck,fits")
    assert status == 0
    assert out.splitlines()[3:] == ["1           Memory             True", "2           Memory             True",
                                    "4           Memory             True"]


def test_sensitivity_names_the_inputs_a_user_sets(capsys) -> None:
    _, out, _ = run(capsys, "sensitivity", "Llama3_70B_Int8DecodeH100", "result.memory_time")
    names = [line.split()[0] for line in out.splitlines()[3:]]
    assert names == ["hardware.memory_bandwidth", "precision", "tp_size", "workload.parameters"]
    assert "precision_value" not in out and "hardware_bandwidth" not in out


def test_compare_names_the_inputs_a_user_set(capsys) -> None:
    _, out, _ = run(capsys, "compare", "Llama3_70B_Int8DecodeH100", "--set", "precision=fp8", "--set",
                    "hardware=B200")
    inputs = out.split("\n\n")[0].splitlines()[3:]
    assert [line.split()[:3] for line in inputs] == [["hardware", "Hardware.Cloud.H100", "Hardware.Cloud.B200"],
                                                     ["precision", "int8", "fp8"]]
    assert "hardware.memory_bandwidth -0.870" in row(out, "result.memory_time")
    assert "hardware_peak" not in out


def test_does_not_fit_is_said_where_that_is_why(capsys) -> None:
    _, out, _ = run(capsys, "explain", "Llama3_70B_DecodeH100", "result.memory_time")
    assert "result       result.memory_time = – (does not fit)" in out
    _, out, _ = run(capsys, "compare", "Llama3_70B_DecodeH100", "Llama3_70B_Int8DecodeH100")
    assert row(out, "result.compute_time").startswith("– (does not fit)")
    assert "needs an input not given" not in out


def test_hardware_reaches_the_accelerator_of_a_parallel_layout(capsys) -> None:
    layout = Scenarios.Gpt3DataParallel1K
    assert layout.variant(hardware=Hardware.Cloud.B200) == layout.variant(accelerator=Hardware.Cloud.B200)
    with pytest.raises(ScenarioInputError, match="'hardware' and 'accelerator' name the same input; give one"):
        layout.variant(hardware=Hardware.Cloud.B200, accelerator=Hardware.Cloud.H100)
    status, out, _ = run(capsys, "eval", "Gpt3DataParallel1K", "--set", "hardware=B200")
    assert status == 0 and row(out, "accelerator") == "Hardware.Cloud.B200"
