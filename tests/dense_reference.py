"""An independent, hand-written implementation of REFERENCE §5–§7, for comparison only.

Plain Python straight from the reference's formulas: no sympy, no generated code. FLOPs
in flop, bytes in byte, times in ms, rates in flop/s.
"""

from __future__ import annotations


def dense(widths: list[int], b: int, v: float, q: float, examples: int | None) -> dict[str, object]:
    L = len(widths) - 1
    w = widths
    pairs = [(w[k - 1], w[k]) for k in range(1, L + 1)]
    M = sum(a * c for a, c in pairs)
    beta = sum(w[1:])
    P = M + beta
    H = sum(w[1:L])
    mm = [2 * b * a * c for a, c in pairs]
    ew = [2 * b * c for _, c in pairs]
    MM, EW = sum(mm), sum(ew)
    F = MM + EW
    IG = sum(mm[1:])
    T = b * (w[0] + 2 * H + w[L])
    S = b * sum(w)
    R = b * max(a + c for a, c in pairs)
    training_memory = P * v + S * v + P * v + P * q
    inference_memory = P * v + R * v
    return {
        "layer_widths": list(w), "batch_size": b, "layers": L,
        "weights_per_layer": [a * c for a, c in pairs], "biases_per_layer": [c for _, c in pairs],
        "params_per_layer": [a * c + c for a, c in pairs],
        "weights": M, "biases": beta, "parameters": P, "macs_per_example": M, "flops_per_example": 2 * M,
        "first_layer_share": w[0] * w[1] / M,
        "matmul_flops_per_layer": mm, "elementwise_flops_per_layer": ew,
        "matmul_flops": MM, "elementwise_flops": EW, "forward_flops": F, "forward_flops_per_example": F / b,
        "matmul_share": MM / F, "elementwise_share": EW / F,
        "parameter_bytes": P * v, "traffic_values": T, "traffic_bytes": P * v + T * v,
        "intensity": F / (P * v + T * v),
        "weight_gradient_flops": MM, "input_gradient_flops": IG, "training_step_flops": MM + MM + IG,
        "training_flops_ratio": (2 * MM + IG) / MM,
        "activation_values_per_layer": [b * x for x in w], "activation_values_per_example": sum(w),
        "saved_activation_values": S, "saved_activation_bytes": S * v,
        "inference_activation_values": R, "inference_activation_bytes": R * v,
        "gradient_bytes": P * v, "optimizer_bytes": P * q,
        "training_memory": training_memory, "inference_memory": inference_memory,
        "training_memory_ratio": training_memory / inference_memory,
        "steps_per_epoch": None if examples is None else examples // b,
    }


def epoch(widths, b, v, q, examples, peaks, bandwidths, d_us, launch_us, e_dram_pj, e_flop_pj):
    """REFERENCE §7; ``peaks``/``bandwidths`` are dicts keyed host and accelerator."""
    batched, single = dense(widths, b, v, q, examples), dense(widths, 1, v, q, examples)
    steps, step_flops, ops = batched["steps_per_epoch"], batched["training_step_flops"], 4 * batched["layers"]
    cost = {"host": d_us, "accelerator": d_us + launch_us}
    out: dict[str, dict[str, float]] = {k: {} for k in ("ridge", "rate_batch1", "rate", "batching_speedup",
                                                         "work_time", "overhead_time", "total_time")}
    for k in ("host", "accelerator"):
        out["ridge"][k] = peaks[k] / bandwidths[k]
        out["rate_batch1"][k] = min(peaks[k], bandwidths[k] * single["intensity"])
        out["rate"][k] = min(peaks[k], bandwidths[k] * batched["intensity"])
        out["batching_speedup"][k] = out["rate"][k] / out["rate_batch1"][k]
        out["work_time"][k] = steps * step_flops / out["rate"][k] * 1e3
        out["overhead_time"][k] = steps * ops * cost[k] / 1e3
        out["total_time"][k] = out["work_time"][k] + out["overhead_time"][k]
    return {
        "steps": steps, "step_flops": step_flops, "ops_per_step": ops, **out,
        "work_speedup": out["work_time"]["host"] / out["work_time"]["accelerator"],
        "overhead_share_accelerator": out["overhead_time"]["accelerator"] / out["total_time"]["accelerator"],
        "movement_to_arithmetic_energy": e_dram_pj / batched["intensity"] / e_flop_pj,
        "movement_to_arithmetic_energy_batch1": e_dram_pj / single["intensity"] / e_flop_pj,
    }
