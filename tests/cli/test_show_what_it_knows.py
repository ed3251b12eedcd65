"""Issue 42 items 2 and 5: the CLI shows what it knows (catalog entries, a config.json, an entry's
inputs) and prints each value at a scale a person reads. Run as a user runs it: exit status and text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generated import Scenarios
from symbolic.cli import main
from symbolic.runtime.display import number_text, shown
from symbolic.runtime.readable import readable


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def row(text: str, name: str) -> str:
    """The value column of the table row named ``name``."""
    line = next(line for line in text.splitlines() if line.startswith(name + "  "))
    return line[len(name):].strip()


def test_show_a_hardware_node(capsys) -> None:
    status, out, _ = run(capsys, "show", "Hardware.Cloud.H100")
    assert status == 0 and out.startswith("hardware node Hardware.Cloud.H100\n")
    assert row(out, "memory_capacity") == "80 GiB" and row(out, "memory_bandwidth") == "3.35 TB/s"
    assert row(out, "precision_flops[fp8]") == "1.979 Pflop/s"  # 1979 TFLOP/s
    status, listed, _ = run(capsys, "list", "Hardware.Cloud.H100")  # was "unknown scenario class"
    assert status == 0 and listed == out


def test_show_a_model_sizes_serving_it(capsys) -> None:
    status, out, _ = run(capsys, "show", "Models.Language.Llama3_70B")
    assert status == 0
    assert row(out, "layers") == "80" and row(out, "kv_heads") == "8"
    # K and V x 80 layers x 8 KV heads x 128 (8192 / 64 heads) x 2 byte = 327,680 byte per token
    assert row(out, "KV cache per token (bf16)") == "327.68 kB"
    assert row(out, "weights at bf16") == "141.2 GB"    # 70.6e9 stated parameters x 2 byte
    assert row(out, "weights at fp8") == "70.6 GB"
    assert row(out, "weights at int4") == "35.3 GB"     # half a byte each
    # at the default context 8192 and batch 1: 327,680 x 8,192 = 2,684,354,560 byte;
    # with the weights 141.2e9 + 2.684e9 = 143.884e9 byte
    assert row(out, "KV cache at context 8,192, batch 1 (bf16)") == "2.68435 GB"
    assert row(out, "memory to serve: weights + KV (bf16)") == "143.884 GB"
    _, wider, _ = run(capsys, "show", "Models.Language.Llama3_70B", "--context", "32768", "--batch", "8",
                      "--precision", "fp8")
    # 163,840 byte per token at fp8 x 32,768 x 8 = 42,949,672,960 byte; + 70.6e9 = 113.55e9
    assert row(wider, "KV cache at context 32,768, batch 8 (fp8)") == "42.9497 GB"
    assert row(wider, "memory to serve: weights + KV (fp8)") == "113.55 GB"


def test_show_a_catalog_path_that_is_not_there_names_the_nearest(capsys) -> None:
    status, out, err = run(capsys, "show", "Hardware.Cloud.H10")
    assert status == 2 and out == ""
    assert err == ("mlsysym: error: unknown hardware node 'Hardware.Cloud.H10'; did you mean Cloud.H100, "
                   "Cloud.V100, Cloud.P100?\n")


MIXTRAL = {"model_type": "mixtral", "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32,
           "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 8,
           "num_experts_per_tok": 2}


def test_describe_a_config_json(capsys, tmp_path: Path) -> None:
    path = tmp_path / "Mixtral-8x7B" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(MIXTRAL), encoding="utf-8")
    status, out, _ = run(capsys, "describe", str(path), "--context", "32768", "--batch", "4")
    assert status == 0 and out.startswith(f"Mixtral-8x7B (from {path})\n")
    # the counts are the layout's declared expressions (the README pins 46,702,792,704 and 12,879,925,248)
    assert row(out, "parameters (all: the weights)") == "46702792704 param"
    assert row(out, "active parameters per token (the FLOPs)") == "12879925248 param"
    # K and V x 32 layers x 8 KV heads x 128 (4096 / 32) x 2 byte = 131,072 byte per token
    assert row(out, "KV cache per token (bf16)") == "131.072 kB"
    assert row(out, "weights at bf16") == "93.4056 GB"  # 2 x 46,702,792,704 = 93,405,585,408 byte
    # 131,072 x 32,768 x 4 = 17,179,869,184 byte; + 93,405,585,408 = 110,585,454,592 byte
    assert row(out, "KV cache at context 32,768, batch 4 (bf16)") == "17.1799 GB"
    assert row(out, "memory to serve: weights + KV (bf16)") == "110.585 GB"
    assert row(out, "experts") == "8" and row(out, "active_experts_per_token") == "2"


def test_describe_a_missing_file_is_a_usage_error(capsys, tmp_path: Path) -> None:
    status, out, err = run(capsys, "describe", str(tmp_path / "nope.json"))
    assert status == 2 and out == ""
    assert err.startswith(f"mlsysym: error: describe: {tmp_path / 'nope.json'}: cannot read the config")


def test_show_an_entry_lists_its_inputs(capsys) -> None:
    status, out, _ = run(capsys, "show", "Llama3_70B_DecodeH100")
    assert status == 0
    assert row(out, "workload") == "Models.Language.Llama3_70B" and row(out, "hardware") == "Hardware.Cloud.H100"
    assert row(out, "precision") == "fp16" and row(out, "tp_size") == "1" and row(out, "batch_size") == "1"


def test_list_an_entry_gives_its_values_beside_the_class_defaults(capsys) -> None:
    status, out, _ = run(capsys, "list", "Llama3_70B_DecodeH100Batch64")
    assert status == 0
    header = next(line for line in out.splitlines() if line.startswith("input "))
    assert "value in Llama3_70B_DecodeH100Batch64" in header and "default" in header
    batch = next(line for line in out.splitlines() if line.startswith("batch_size "))
    assert batch.split()[2:4] == ["64", "1"]  # the entry's 64, then the class's default 1


# -- item 5: units a person reads -------------------------------------------------------------------------
def test_one_table_reads_in_one_scale(capsys) -> None:
    # the table: 2.8689e+11 B beside 85.5638 GB
    _, out, _ = run(capsys, "show", "Gpt2XlBatch32Activations", "activations")
    assert row(out, "activations[none]") == "286.89 GB" and row(out, "activations[selective]") == "85.5638 GB"


def test_a_long_time_reads_in_seconds(capsys) -> None:
    # 4,650 ms of inter-node traffic reads as 4.65 s
    _, out, _ = run(capsys, "show", "Gpt2DataParallelFourNodes10GbE", "result.inter_time")
    assert row(out, "result.inter_time") == "4.65 s"


def test_json_keeps_the_declared_unit(capsys) -> None:
    _, out, _ = run(capsys, "--json", "show", "Gpt2XlBatch32Activations", "activations[none]")
    assert json.loads(out)["outputs"]["activations[none]"] == {"value": 286890393600.0, "unit": "B"}


def test_the_notebook_table_reads_at_the_same_scale() -> None:
    html = Scenarios.Gpt2XlBatch32Activations._repr_html_()
    assert "286.89" in html and "2.8689e+11" not in html


@pytest.mark.parametrize(("value", "unit", "expected"), [
    (43118.5, "ms", "43.1185 s"), (2.8689e11, "B", "286.89 GB"), (0.3, "GB", "300 MB"), (80, "GiB", "80 GiB"),
    (32768.0, "GiB", "32 TiB"), (3.2e10, "GiB", "30517.6 PiB"), (1.2e6, "s", "13.8889 days"), (7200.0, "s", "7200 s"), (12000.0, "s", "3.33333 h"),
    (1, "flop/B", "1 flop/B"), (5e14, "FLOP/s", "500 TFLOP/s"), (2e-7, "s", "200 ns"), (-0.0, "s", "0 s"),
])
def test_readable_scales(value: float, unit: str, expected: str) -> None:
    assert shown(value, unit) == expected
    assert readable(value, unit)[1] == expected.split(" ", 1)[1]


def test_no_minus_zero() -> None:
    assert number_text(-0.0) == "0" and number_text(-1e-300 * 1e-300) == "0"


def test_the_pages_worked_examples_read_at_the_same_scale() -> None:
    page = (Path(__file__).resolve().parents[2] / "generated" / "docs" / "scenarios" / "ServingScenario.md")
    text = page.read_text(encoding="utf-8")
    # Llama-3.1-70B's KV cache at 2,048 tokens in FP16: 2 x 2,048 x 163,840 byte = 671.1 MB (declared in GB)
    assert r"\approx 671.1\,\mathrm{MB}" in text and r"\approx 0.6711\,\mathrm{GB}" not in text
