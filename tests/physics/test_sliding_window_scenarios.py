"""Scenarios that size a KV cache cap a sliding-window block at its window (issue #28), by hand from the configs."""

import pytest

import mlsysym
from generated import Scenarios

DATA = "tests/data"
SERVING = Scenarios.Llama3_70B_ServingH100


def _served(config, tokens):
    return SERVING.variant(workload=mlsysym.workload_from_config(f"{DATA}/{config}.json"), seq_len=tokens).result


def test_mistral_every_block_keeps_the_window():
    # 32 blocks × 8 KV heads × 128 wide × (K, V) = 65,536 values per token; all 32 blocks cap at 4,096 positions
    hand = 32 * 8 * 128 * 2 * 4096 * 2  # fp16 bytes
    assert _served("mistral-7b-v0.1", 16384).kv_cache_size.to("B").magnitude == pytest.approx(hand, rel=1e-15)
    # under the window nothing is capped: 1,000 tokens keep 1,000 positions
    assert _served("mistral-7b-v0.1", 1000).kv_cache_size.to("B").magnitude == pytest.approx(
        32 * 8 * 128 * 2 * 1000 * 2, rel=1e-15)


def test_gemma2_alternating_blocks():
    # 42 blocks, 21 local (window 4,096) and 21 global; 8 KV heads × 256 wide × (K, V) per block and position
    per_block_position = 8 * 256 * 2
    positions = 21 * 16384 + 21 * 4096
    hand = per_block_position * positions * 2
    assert _served("gemma-2-9b", 16384).kv_cache_size.to("B").magnitude == pytest.approx(hand, rel=1e-15)


def test_no_window_is_the_full_cache():
    # Llama-3-8B: 32 × 8 × 128 × 2 values per token, every token in every block
    result = _served("llama-3-8b", 16384)
    assert result.kv_cache_size.to("B").magnitude == pytest.approx(32 * 8 * 128 * 2 * 16384 * 2, rel=1e-15)
    # the catalog's Llama-3.1-70B entry (no window fields): 80 × 8 × 128 × 2 values per token at 2,048 tokens
    assert SERVING.result.kv_cache_size.to("B").magnitude == pytest.approx(80 * 8 * 128 * 2 * 2048 * 2, rel=1e-15)


def test_sweep_agrees_with_scalar_across_the_window():
    import numpy as np
    workload = mlsysym.workload_from_config(f"{DATA}/gemma-2-9b.json")
    base = SERVING.variant(workload=workload, seq_len=1)
    tokens = np.array([1, 4095, 4096, 4097, 100000])
    result = mlsysym.sweep(base, {"seq_len": tokens})
    swept, unit = result["result.kv_cache_size"], result.units["result.kv_cache_size"]
    for n, value in zip(tokens, swept, strict=True):
        assert value == pytest.approx(base.variant(seq_len=int(n)).result.kv_cache_size.to(unit).magnitude, rel=1e-15)
