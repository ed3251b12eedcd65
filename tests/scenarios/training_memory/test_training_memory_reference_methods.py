"""The training-memory group's methods with an argument, called as the reference's users call them.

The registry entries of training_memory.md with a method are rebuilt from the spec's inputs with the
reference's keywords; each method the spec lists is called with the spec's argument, the expected
values being the spec's (worked out by hand in the comments).
"""

from __future__ import annotations

import pytest

from generated import ActivationMemoryScenario, Hardware, Models, Q_, Scenarios, TrainingStateFitScenario


def gpt2_xl_activations(**changes):
    """Gpt2XlBatch32Activations: GPT-2 XL (L 48, h 1600, a 25), micro-batch 32, 1024 tokens, 16 bits, N 10 MB."""
    inputs = {"workload": Models.Language.GPT2, "micro_batch": 32, "seq_len": 1024, "precision_bytes": 2,
              "normalization_per_layer": Q_(10, "MB")} | changes
    return ActivationMemoryScenario(name="rebuilt", description="", **inputs)


def test_checkpoint_memory_units():
    """k + L/k for L = 48: 49.0, 16.0 and 48/7 + 7 = 13.857142857142858 (spec §3.2)."""
    s = gpt2_xl_activations()
    assert s == Scenarios.Gpt2XlBatch32Activations
    assert [s.checkpoint_memory_units(k) for k in (1, 4)] == [49.0, 16.0]
    assert s.checkpoint_memory_units(checkpoints=7) == pytest.approx(13.857142857142858, rel=1e-15)


@pytest.mark.parametrize(("changes", "full_bytes", "scale"), [
    # 48 layers · 2·s·b·h·p/2 = 48 · 2 · 1024 · 32 · 1600 · 1 B = 5,033,164,800 B
    ({}, 5033164800, 1),
    ({"precision_bytes": 4}, 10066329600, 2),  # Gpt2XlBatch32ActivationsFp32: twice
    ({"micro_batch": 16}, 2516582400, 0.5),  # Gpt2XlMicroBatch16Activations: half
])
def test_activations_of_a_strategy(changes, full_bytes, scale):
    s = gpt2_xl_activations(**changes)
    assert s.activations("full").to("byte").magnitude == pytest.approx(full_bytes, rel=1e-12)
    # selective = 17 × full (34 against 2); none adds 5·a·s²·b·p/2 per layer = 48·5·25·1024²·32·(p/2) B
    assert s.activations("selective").to("byte").magnitude == pytest.approx(17 * full_bytes, rel=1e-12)
    assert s.activations("none").to("byte").magnitude == pytest.approx(
        17 * full_bytes + 48 * 5 * 25 * 1024**2 * 32 * scale, rel=1e-12)
    with pytest.raises(Exception, match="'foo' is not one of its keys"):
        s.activations("foo")


def test_activations_at_and_checkpoint_write_time():
    """ResNet50Fp32AdamBatch64 (FP32 Adam, 8 GB of activations for 64 images, H100): activations_at(512) =
    8e9·512/64 = 6.4e10 B (the stated activations of ResNet50Fp32AdamBatch512); the checkpoint W + M + O =
    25,557,032·(4 + 8) = 306,684,384 B written at 10 GB/s takes 0.0306684384 s."""
    s = TrainingStateFitScenario(name="rebuilt", description="", workload=Models.Vision.ResNet50,
                                 hardware=Hardware.Cloud.H100, bytes_per_value=Q_(4, "byte"),
                                 optimizer_bytes_per_parameter=Q_(8, "byte"), batch_size=64, activations=Q_(8, "GB"))
    assert s == Scenarios.ResNet50Fp32AdamBatch64
    assert s.activations_at(512).to("byte").magnitude == pytest.approx(6.4e10, rel=1e-15)
    assert s.activations_at(512) == Scenarios.ResNet50Fp32AdamBatch512.activations
    assert s.checkpoint_write_time(Q_(10, "GB/s")).to("s").magnitude == pytest.approx(0.0306684384, rel=1e-12)
    assert s.checkpoint_write_time(bandwidth=Q_(80, "Gbit/s")).to("s").magnitude == pytest.approx(0.0306684384,
                                                                                                  rel=1e-12)
