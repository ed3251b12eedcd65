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


# Every scenario that sizes a cache at a context length reads the record's one expression, kv_cache_bytes(S, width).
MISTRAL_TOKEN = 32 * 8 * 128 * 2 * 2  # 32 blocks × 8 KV heads × 128 wide × (K, V) × 2 byte = 131,072 byte/token
MISTRAL_WEIGHTS = 7_241_732_096 * 2  # its architecture count at fp16: 14,483,464,192 byte
GEMMA_POSITION = 8 * 256 * 2 * 2  # a Gemma-2-9B block caches 8 KV heads × 256 wide × (K, V) × 2 byte = 8,192 byte
H100_BW, H100_CAP = 3.35e12, 80 * 2**30  # byte/s; 85,899,345,920 byte


def _config(name):
    return mlsysym.workload_from_config(f"{DATA}/{name}.json")


def test_decode_batch_caps_each_sequence_at_the_window():
    s = Scenarios.Gpt2XlChatDecodeBatchesH100.variant(workload=_config("mistral-7b-v0.1"), context_tokens=16384)
    m = MISTRAL_TOKEN * 4096  # 536,870,912 byte: 4,096 positions in each block, not 16,384 (2,147,483,648)
    assert s.kv_per_token.to("B").magnitude == MISTRAL_TOKEN
    assert s.kv_per_sequence.to("B").magnitude == pytest.approx(536_870_912, rel=1e-15)
    # β/m: 3.35e12 / 536,870,912 = 6,239.86 tokens/s (uncapped: 1,559.97)
    assert s.rate_ceiling.to("1/s").magnitude == pytest.approx(H100_BW / m, rel=1e-12)
    assert s.rate_ceiling.to("1/s").magnitude == pytest.approx(6239.86, rel=1e-6)
    # ⌊(85,899,345,920 − 14,483,464,192) / 536,870,912⌋ = ⌊133.02⌋ = 133 sequences (uncapped: ⌊33.26⌋ = 33)
    assert s.max_batch_in_memory == 133
    # ⌊(0.02 s · 3.35e12 − 14,483,464,192) / 536,870,912⌋ = ⌊97.82⌋ = 97 within 20 ms (uncapped: 24)
    assert s.max_batch_within(20) == 97
    # step of 8: 14,483,464,192 + 8 · 536,870,912 = 18,778,431,488 byte
    assert s.step_bytes(8).to("B").magnitude == pytest.approx(18_778_431_488, rel=1e-15)
    # under the window nothing is capped: 1,000 tokens keep 1,000 positions
    short = s.variant(context_tokens=1000)
    assert short.kv_per_sequence.to("B").magnitude == pytest.approx(MISTRAL_TOKEN * 1000, rel=1e-15)


def test_decode_batch_gemma2_grows_in_its_global_blocks_only():
    s = Scenarios.Gpt2XlChatDecodeBatchesH100.variant(workload=_config("gemma-2-9b"), context_tokens=16384)
    # 42 · 4,096 + 21 · (16,384 − 4,096) = 430,080 positions · 8,192 = 3,523,215,360 byte (uncapped 5,637,144,576)
    assert s.kv_per_sequence.to("B").magnitude == pytest.approx(3_523_215_360, rel=1e-15)
    assert s.kv_per_sequence.to("B").magnitude == pytest.approx(430_080 * GEMMA_POSITION, rel=1e-15)


def test_decode_batch_without_a_window_is_unchanged():
    # the registry's GPT-2 XL: 48 × 25 × 64 × 2 × 2 = 307,200 byte/token × 1,024 tokens
    s = Scenarios.Gpt2XlChatDecodeBatchesH100
    assert s.kv_per_sequence.to("B").magnitude == 307_200 * 1024
    llama = s.variant(workload=_config("llama-3-8b"), context_tokens=16384)  # 32 × 8 × 128 × 2 × 2 = 131,072
    assert llama.kv_per_sequence.to("B").magnitude == 131_072 * 16384


def test_chat_service_requests_cap_at_the_window():
    base = Scenarios.Llama3_8BInt4ChatServiceH100
    s = base.variant(workload=_config("mistral-7b-v0.1"), prompt_tokens=8000, decode_tokens=192)
    # 8,192 tokens a request, 4,096 kept a block: 131,072 · 4,096 = 536,870,912 byte (uncapped 1,073,741,824)
    assert s.kv_per_request.to("B").magnitude == pytest.approx(536_870_912, rel=1e-15)
    # 72 GiB = 77,309,411,328 byte holds 77,309,411,328 / 536,870,912 = 144 requests (uncapped: 72)
    assert s.resident_requests == 144
    # the reserve is full either way: (3,620,866,048 + 77,309,411,328) / 3.35e12 s + 32 · 0.01 ms = 24.478292 ms
    assert s.tpot.to("ms").magnitude == pytest.approx(
        (7_241_732_096 * 0.5 + 144 * 536_870_912) / H100_BW * 1e3 + 0.32, rel=1e-12)
    # Little's law over twice the resident requests: twice the uncapped rate (request_time unchanged)
    assert s.residency_request_rate.to("1/s").magnitude == pytest.approx(
        144 / s.request_time.to("s").magnitude, rel=1e-12)
    # a reserve of 0.6 GiB holds one capped request (0.5 GiB) where the uncapped 1 GiB did not fit
    one = s.variant(kv_reserve=mlsysym.Q_("0.6 GiB"))
    assert one.resident_requests == 1
    with pytest.raises(mlsysym.ScenarioInputError, match="kv_reserve must hold at least one request"):
        one.variant(workload=_config("llama-3-8b"))  # 131,072 · 8,192 = 1 GiB > 0.6 GiB


def test_kv_footprint_caps_a_request_at_the_window():
    base = Scenarios.Gpt2XlKvFullWindow
    s = base.variant(workload=_config("mistral-7b-v0.1"), tokens=16384, hardware=mlsysym.Hardware.Cloud.H100,
                     kv_share=0.5)
    assert s.per_token.to("B").magnitude == MISTRAL_TOKEN
    # 131,072 · 4,096 = 536,870,912 byte (uncapped 131,072 · 16,384 = 2,147,483,648)
    assert s.total.to("B").magnitude == pytest.approx(536_870_912, rel=1e-15)
    # half of 80 GB as labeled, 4e10 byte, over 536,870,912: 74.5058 requests (uncapped 18.6265)
    assert s.requests == pytest.approx(4e10 / 536_870_912, rel=1e-12)
    assert s.requests == pytest.approx(74.5058, rel=1e-5)
    # the registry's Llama-2-7B has no window: 32 × 32 × 128 × 2 × 2 = 524,288 byte/token × 2,048
    assert Scenarios.Llama2_7BKvAt2048Tokens.total.to("B").magnitude == 524_288 * 2048


def test_alignment_rollouts_cap_at_the_window():
    s = Scenarios.Llama2_70B_PpoAlignment.variant(policy=_config("mistral-7b-v0.1"), rollout_tokens=16384)
    # 256 rollouts · 131,072 byte · 4,096 kept positions = 137,438,953,472 byte (uncapped 549,755,813,888)
    assert s.result.kv_cache.to("B").magnitude == pytest.approx(137_438_953_472, rel=1e-15)
    # over the 8 · 4 = 32 model-parallel devices: 4,294,967,296 byte each
    assert s.result.kv_per_device.to("B").magnitude == pytest.approx(4_294_967_296, rel=1e-15)
    # the registry's Llama-2-70B (no window): 256 · 80 · 8 · 128 · 2 · 2 byte · 1,024 tokens
    assert Scenarios.Llama2_70B_PpoAlignment.result.kv_cache.to("B").magnitude == 256 * 327_680 * 1024
