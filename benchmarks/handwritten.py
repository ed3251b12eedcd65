"""The limit: each seed scenario written by hand as one plain-Python function.

Written from the formulas of /work/shared/REFERENCE.md §2-§7, not from the generated
code. Each function takes the raw evaluator's keywords (numbers in the declared input
units: µs, byte, flop/s, byte/s, GB/s, pJ/byte, pJ/flop) and returns the same nested
dict, every value in its display unit. Plain arithmetic only, so the training step also
runs on numpy arrays.
"""

from __future__ import annotations

from typing import Any


def host_dispatch(*, ops_per_block: Any, blocks: Any = 1, launches_per_block: Any = None, dispatch: Any,
                  launch: Any, device_time: Any) -> dict[str, Any]:
    """§2: times in µs, ratios plain."""
    per_block = ops_per_block if launches_per_block is None else launches_per_block
    operations = blocks * ops_per_block
    launches = blocks * per_block
    dispatch_time = operations * dispatch
    launch_time = launches * launch
    host_time = dispatch_time + launch_time
    return {
        "operations": operations,
        "launches": launches,
        "per_op_cost": dispatch + launch,
        "dispatch_time": dispatch_time,
        "launch_time": launch_time,
        "host_time": host_time,
        "overhead_ratio": host_time / device_time,
        "launch_ratio": launch_time / device_time,
        "host_share": host_time / (host_time + device_time),
        "speedup_limit": (host_time + device_time) / device_time,
    }


def mlp_training_step(*, batch_size: Any, input_width: Any, hidden_width: Any, output_width: Any,
                      bytes_per_value: Any, label_bytes: Any, loss_flops_per_logit: Any,
                      optimizer_values_moved: Any, hardware_peak: Any, hardware_bandwidth: Any, forward_ops: Any,
                      backward_ops: Any, dispatch: Any, launch: Any) -> dict[str, Any]:
    """§3: flop, byte, TFLOP/s and µs; the host part of §2 inlined."""
    b, i, h, o, v = batch_size, input_width, hidden_width, output_width, bytes_per_value
    bh, bo = b * h, b * o
    ih, ho = i * h, h * o
    matmul1 = 2 * bh * i
    matmul2 = 2 * bh * o
    loss = loss_flops_per_logit * bo
    bytes1 = v * (b * i + ih + bh)
    bytes2 = v * (bh + ho + bo)
    relu_bytes = 2 * bh * v
    loss_bytes = 2 * bo * v
    relu_backward_bytes = 3 * bh * v
    loss_backward_bytes = loss_bytes + b * label_bytes
    forward_flops = matmul1 + bh + matmul2 + loss
    backward_flops = 2 * matmul2 + matmul1 + bh + 2 * bo
    forward_bytes = bytes1 + relu_bytes + bytes2 + loss_bytes
    backward_bytes = 2 * bytes2 + bytes1 + relu_backward_bytes + loss_backward_bytes
    total_flops = forward_flops + backward_flops
    total_bytes = forward_bytes + backward_bytes
    parameters = ih + h + ho + o
    compute_time = total_flops / hardware_peak * 1e6
    memory_time = total_bytes / hardware_bandwidth * 1e6
    ops_per_block = forward_ops + 1
    launches = forward_ops + backward_ops
    device_time = compute_time + memory_time
    dispatch_time = ops_per_block * dispatch
    launch_time = launches * launch
    host_time = dispatch_time + launch_time
    return {
        "op_flops": {
            "matmul1": matmul1,
            "relu": bh,
            "matmul2": matmul2,
            "loss": loss,
            "grad_w2": matmul2,
            "grad_h": matmul2,
            "grad_w1": matmul1,
            "relu_backward": bh,
            "loss_backward": 2 * bo,
        },
        "op_bytes": {
            "matmul1": bytes1,
            "relu": relu_bytes,
            "matmul2": bytes2,
            "loss": loss_bytes,
            "grad_w2": bytes2,
            "grad_h": bytes2,
            "grad_w1": bytes1,
            "relu_backward": relu_backward_bytes,
            "loss_backward": loss_backward_bytes,
        },
        "forward_flops": forward_flops,
        "backward_flops": backward_flops,
        "forward_bytes": forward_bytes,
        "backward_bytes": backward_bytes,
        "total_flops": total_flops,
        "total_bytes": total_bytes,
        "dense_training_ratio": (2 * matmul1 + 3 * matmul2) / (matmul1 + matmul2),
        "parameters": parameters,
        "optimizer_step_bytes": parameters * optimizer_values_moved * v,
        "intensity": total_flops / total_bytes,
        "peak_rate": hardware_peak * 1e-12,
        "compute_time": compute_time,
        "memory_time": memory_time,
        "host": {
            "ops_per_block": ops_per_block,
            "blocks": 1,
            "launches_per_block": launches,
            "dispatch": dispatch,
            "launch": launch,
            "device_time": device_time,
            "operations": ops_per_block,
            "launches": launches,
            "per_op_cost": dispatch + launch,
            "dispatch_time": dispatch_time,
            "launch_time": launch_time,
            "host_time": host_time,
            "overhead_ratio": host_time / device_time,
            "launch_ratio": launch_time / device_time,
            "host_share": host_time / (host_time + device_time),
            "speedup_limit": (host_time + device_time) / device_time,
        },
    }


def update_working_set(*, parameters: Any, bytes_per_param: Any, optimizer_moments: Any, activation_factor: Any,
                       activation_factor_high: Any, bandwidth: Any = None) -> dict[str, Any]:
    """§4: MB (1e6 byte) and ms; MB / (GB/s) is exactly ms."""
    weights = parameters * bytes_per_param * 1e-6
    state = optimizer_moments * weights
    activations = activation_factor * weights
    persistent = 2 * weights + state
    total = persistent + activations
    forward = weights + activations
    backward = activations + 2 * weights
    optimizer = 3 * weights + 2 * state
    step = forward + backward + optimizer
    reads = 3 * weights
    floor = persistent / weights
    return {
        "weights": weights,
        "gradients": weights,
        "optimizer_state": state,
        "activations": activations,
        "persistent": persistent,
        "total": total,
        "amplification": total / weights,
        "floor": floor,
        "ceiling": floor + activation_factor_high,
        "forward_traffic": forward,
        "backward_traffic": backward,
        "optimizer_traffic": optimizer,
        "step_traffic": step,
        "weight_reads": reads,
        "traffic_ratio": step / weights,
        "weight_read_share": reads / step,
        "step_floor": None if bandwidth is None else step / bandwidth,
    }


def dense_network(*, layer_widths: list[int], batch_size: int = 1, bytes_per_value: Any,
                  optimizer_bytes_per_parameter: Any, dataset_training_examples: Any = None) -> dict[str, Any]:
    """§5-§6: counts exact ints, flop, byte, flop/byte."""
    w, b, v = layer_widths, batch_size, bytes_per_value
    layers = len(w) - 1
    weights_per_layer = [w[k - 1] * w[k] for k in range(1, layers + 1)]
    biases_per_layer = w[1:]
    weights = sum(weights_per_layer)
    biases = sum(biases_per_layer)
    parameters = weights + biases
    matmul_per_layer = [2 * b * n for n in weights_per_layer]
    elementwise_per_layer = [2 * b * n for n in biases_per_layer]
    matmul = 2 * b * weights
    elementwise = 2 * b * biases
    forward = matmul + elementwise
    parameter_bytes = parameters * v
    traffic_values = b * (w[0] + 2 * sum(w[1:layers]) + w[layers])
    traffic_bytes = parameter_bytes + traffic_values * v
    input_gradient = sum(matmul_per_layer[1:])
    training_step = 2 * matmul + input_gradient
    per_example = sum(w)
    saved = b * per_example
    live = b * max(w[k - 1] + w[k] for k in range(1, layers + 1))
    saved_bytes = saved * v
    live_bytes = live * v
    optimizer_bytes = parameters * optimizer_bytes_per_parameter
    training_memory = 2 * parameter_bytes + saved_bytes + optimizer_bytes
    inference_memory = parameter_bytes + live_bytes
    return {
        "architecture": " → ".join(str(width) for width in w),
        "result": {
            "layers": layers,
            "weights_per_layer": weights_per_layer,
            "biases_per_layer": biases_per_layer,
            "params_per_layer": [n + m for n, m in zip(weights_per_layer, biases_per_layer, strict=True)],
            "weights": weights,
            "biases": biases,
            "parameters": parameters,
            "macs_per_example": weights,
            "flops_per_example": 2 * weights,
            "first_layer_share": weights_per_layer[0] / weights,
            "matmul_flops_per_layer": matmul_per_layer,
            "elementwise_flops_per_layer": elementwise_per_layer,
            "matmul_flops": matmul,
            "elementwise_flops": elementwise,
            "forward_flops": forward,
            "forward_flops_per_example": forward / b,
            "matmul_share": matmul / forward,
            "elementwise_share": elementwise / forward,
            "parameter_bytes": parameter_bytes,
            "traffic_values": traffic_values,
            "traffic_bytes": traffic_bytes,
            "intensity": forward / traffic_bytes,
            "weight_gradient_flops": matmul,
            "input_gradient_flops": input_gradient,
            "training_step_flops": training_step,
            "training_flops_ratio": training_step / matmul,
            "activation_values_per_layer": [b * width for width in w],
            "activation_values_per_example": per_example,
            "saved_activation_values": saved,
            "saved_activation_bytes": saved_bytes,
            "inference_activation_values": live,
            "inference_activation_bytes": live_bytes,
            "gradient_bytes": parameter_bytes,
            "optimizer_bytes": optimizer_bytes,
            "training_memory": training_memory,
            "inference_memory": inference_memory,
            "training_memory_ratio": training_memory / inference_memory,
            "steps_per_epoch": None if dataset_training_examples is None else dataset_training_examples // b,
            "layer_widths": list(w),
            "batch_size": b,
        },
    }


def epoch_overhead(*, network_layer_widths: list[int], network_batch_size: int = 1, network_bytes_per_value: Any,
                   network_optimizer_bytes_per_parameter: Any = None, network_dataset_training_examples: Any,
                   host_peak: Any, host_bandwidth: Any, accelerator_peak: Any, accelerator_bandwidth: Any,
                   dispatch: Any, launch: Any, dram_energy_per_byte: Any, flop_energy: Any) -> dict[str, Any]:
    """§7: the network's intensity at its batch and at batch 1, then both rooflines; ms, µs."""
    w, b, v = network_layer_widths, network_batch_size, network_bytes_per_value
    layers = len(w) - 1
    weights_per_layer = [w[k - 1] * w[k] for k in range(1, layers + 1)]
    weights = sum(weights_per_layer)
    parameters = weights + sum(w[1:])
    outer = w[0] + 2 * sum(w[1:layers]) + w[layers]
    intensity = 2 * b * parameters / (v * (parameters + b * outer))
    intensity1 = 2 * parameters / (v * (parameters + outer))
    step_flops = 4 * b * weights + 2 * b * sum(weights_per_layer[1:])
    steps = network_dataset_training_examples // b
    ops = 4 * layers
    host_rate1 = min(host_peak, host_bandwidth * intensity1)
    accelerator_rate1 = min(accelerator_peak, accelerator_bandwidth * intensity1)
    host_rate = min(host_peak, host_bandwidth * intensity)
    accelerator_rate = min(accelerator_peak, accelerator_bandwidth * intensity)
    epoch_flops_ms = steps * step_flops * 1e3
    host_work = epoch_flops_ms / host_rate
    accelerator_work = epoch_flops_ms / accelerator_rate
    accelerator_cost = dispatch + launch
    host_overhead = ops * steps * dispatch * 1e-3
    accelerator_overhead = ops * steps * accelerator_cost * 1e-3
    accelerator_total = accelerator_overhead + accelerator_work
    energy = dram_energy_per_byte / flop_energy
    return {
        "result": {
            "steps": steps,
            "step_flops": step_flops,
            "ops_per_step": ops,
            "peak": {"host": host_peak, "accelerator": accelerator_peak},
            "bandwidth": {"host": host_bandwidth, "accelerator": accelerator_bandwidth},
            "ridge": {"host": host_peak / host_bandwidth, "accelerator": accelerator_peak / accelerator_bandwidth},
            "rate_batch1": {"host": host_rate1, "accelerator": accelerator_rate1},
            "rate": {"host": host_rate, "accelerator": accelerator_rate},
            "batching_speedup": {"host": host_rate / host_rate1, "accelerator": accelerator_rate / accelerator_rate1},
            "work_time": {"host": host_work, "accelerator": accelerator_work},
            "per_op_cost": {"host": dispatch, "accelerator": accelerator_cost},
            "overhead_time": {"host": host_overhead, "accelerator": accelerator_overhead},
            "total_time": {"host": host_overhead + host_work, "accelerator": accelerator_total},
            "work_speedup": host_work / accelerator_work,
            "overhead_share_accelerator": accelerator_overhead / accelerator_total,
            "movement_to_arithmetic_energy": energy / intensity,
            "movement_to_arithmetic_energy_batch1": energy / intensity1,
        },
    }
