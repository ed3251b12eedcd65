"""The incumbent's approach: the hand-written formulas evaluated on pint Quantities.

Like the reference library, every unit-bearing input is a Quantity (hardware rates as
published: ``67.0 TFLOPs/s``, ``3.35 TB/s``), counts are plain ints, arithmetic goes
through pint, and every output with a unit is converted with ``.to(display unit)``;
dimensionless ratios become plain floats. The units are parsed once, up front, which
favours the incumbent. One project registry: ``symbolic.runtime.units.registry()``.
"""

from __future__ import annotations

from typing import Any

from symbolic.runtime.units import registry

_ureg = registry()
FLOP = _ureg.Unit("flop")
BYTE = _ureg.Unit("byte")
US = _ureg.Unit("µs")
MS = _ureg.Unit("ms")
MB = _ureg.Unit("MB")
TFLOP_S = _ureg.Unit("TFLOP/s")
FLOP_S = _ureg.Unit("flop/s")
BYTE_S = _ureg.Unit("byte/s")
FLOP_PER_BYTE = _ureg.Unit("flop/byte")
COUNT = _ureg.Unit("count")
NONE = _ureg.Unit("dimensionless")


# -- inputs: what a user of the reference passes, taken from a registry instance -----------
def inputs_of(instance: Any) -> dict[str, Any]:
    """The keywords of this module's function for ``instance`` (a generated scenario instance)."""
    given = instance.inputs()
    kind = type(instance).__name__
    if kind == "MlpTrainingStepScenario":
        node = given.pop("hardware")
        precision = given.pop("precision")
        return {**given, "peak": node.precision_flops[precision], "bandwidth": node.memory_bandwidth}
    if kind == "DenseNetworkScenario":
        return _network(given)
    if kind == "EpochOverheadScenario":
        precision = given.pop("precision")
        host, accelerator = given.pop("host"), given.pop("accelerator")
        return {**given, "network": _network(given.pop("network").inputs()),
                "host_peak": host.precision_flops[precision], "host_bandwidth": host.memory_bandwidth,
                "accelerator_peak": accelerator.precision_flops[precision],
                "accelerator_bandwidth": accelerator.memory_bandwidth}
    return given


def _network(given: dict[str, Any]) -> dict[str, Any]:
    dataset = given.pop("dataset")
    examples = None if dataset is None or dataset.training_examples is None else dataset.training_examples * COUNT
    return {**given, "training_examples": examples}


def _ratio(quantity: Any) -> float:
    return quantity.m_as(NONE)


# -- §2 ----------------------------------------------------------------------------------
def host_dispatch(*, ops_per_block: int, blocks: int = 1, launches_per_block: int | None = None, dispatch: Any,
                  launch: Any, device_time: Any) -> dict[str, Any]:
    per_block = ops_per_block if launches_per_block is None else launches_per_block
    operations = blocks * ops_per_block
    launches = blocks * per_block
    dispatch_time = (operations * dispatch).to(US)
    launch_time = (launches * launch).to(US)
    host_time = (dispatch_time + launch_time).to(US)
    return {
        "operations": operations,
        "launches": launches,
        "per_op_cost": (dispatch + launch).to(US),
        "dispatch_time": dispatch_time,
        "launch_time": launch_time,
        "host_time": host_time,
        "overhead_ratio": _ratio(host_time / device_time),
        "launch_ratio": _ratio(launch_time / device_time),
        "host_share": _ratio(host_time / (host_time + device_time)),
        "speedup_limit": _ratio((host_time + device_time) / device_time),
    }


# -- §3 ----------------------------------------------------------------------------------
def mlp_training_step(*, batch_size: int, input_width: int, hidden_width: int, output_width: int,
                      bytes_per_value: Any, label_bytes: Any, loss_flops_per_logit: int,
                      optimizer_values_moved: int, peak: Any, bandwidth: Any, forward_ops: int, backward_ops: int,
                      dispatch: Any, launch: Any) -> dict[str, Any]:
    b, i, h, o, v = batch_size, input_width, hidden_width, output_width, bytes_per_value

    def sized(values: int) -> Any:
        return (values * v).to(BYTE)

    op_flops = {
        "matmul1": 2 * b * i * h * FLOP,
        "relu": b * h * FLOP,
        "matmul2": 2 * b * h * o * FLOP,
        "loss": loss_flops_per_logit * b * o * FLOP,
        "grad_w2": 2 * h * b * o * FLOP,
        "grad_h": 2 * b * o * h * FLOP,
        "grad_w1": 2 * i * b * h * FLOP,
        "relu_backward": b * h * FLOP,
        "loss_backward": 2 * b * o * FLOP,
    }
    op_bytes = {
        "matmul1": sized(b * i + i * h + b * h),
        "relu": sized(2 * b * h),
        "matmul2": sized(b * h + h * o + b * o),
        "loss": sized(2 * b * o),
        "grad_w2": sized(b * h + b * o + h * o),
        "grad_h": sized(b * o + h * o + b * h),
        "grad_w1": sized(b * i + b * h + i * h),
        "relu_backward": sized(3 * b * h),
        "loss_backward": (sized(2 * b * o) + b * label_bytes).to(BYTE),
    }
    forward_flops = op_flops["matmul1"] + op_flops["relu"] + op_flops["matmul2"] + op_flops["loss"]
    backward_flops = (op_flops["grad_w2"] + op_flops["grad_h"] + op_flops["grad_w1"] + op_flops["relu_backward"]
                      + op_flops["loss_backward"])
    forward_bytes = op_bytes["matmul1"] + op_bytes["relu"] + op_bytes["matmul2"] + op_bytes["loss"]
    backward_bytes = (op_bytes["grad_w2"] + op_bytes["grad_h"] + op_bytes["grad_w1"] + op_bytes["relu_backward"]
                      + op_bytes["loss_backward"])
    total_flops = forward_flops + backward_flops
    total_bytes = forward_bytes + backward_bytes
    forward_matmuls = op_flops["matmul1"] + op_flops["matmul2"]
    parameters = i * h + h + h * o + o
    compute_time = (total_flops / peak).to(US)
    memory_time = (total_bytes / bandwidth).to(US)
    device_time = (compute_time + memory_time).to(US)
    host = {"ops_per_block": forward_ops + 1, "blocks": 1, "launches_per_block": forward_ops + backward_ops,
            "dispatch": dispatch.to(US), "launch": launch.to(US), "device_time": device_time,
            **host_dispatch(ops_per_block=forward_ops + 1, launches_per_block=forward_ops + backward_ops,
                            dispatch=dispatch, launch=launch, device_time=device_time)}
    return {
        "op_flops": op_flops,
        "op_bytes": op_bytes,
        "forward_flops": forward_flops,
        "backward_flops": backward_flops,
        "forward_bytes": forward_bytes,
        "backward_bytes": backward_bytes,
        "total_flops": total_flops,
        "total_bytes": total_bytes,
        "dense_training_ratio": _ratio(
            (forward_matmuls + op_flops["grad_w2"] + op_flops["grad_h"] + op_flops["grad_w1"]) / forward_matmuls),
        "parameters": parameters,
        "optimizer_step_bytes": (parameters * optimizer_values_moved * v).to(BYTE),
        "intensity": (total_flops / total_bytes).to(FLOP_PER_BYTE),
        "peak_rate": peak.to(TFLOP_S),
        "compute_time": compute_time,
        "memory_time": memory_time,
        "host": host,
    }


# -- §4 ----------------------------------------------------------------------------------
def update_working_set(*, parameters: float, bytes_per_param: Any, optimizer_moments: int, activation_factor: float,
                       activation_factor_high: float, bandwidth: Any = None) -> dict[str, Any]:
    weights = (parameters * bytes_per_param).to(MB)
    gradients = weights
    state = (optimizer_moments * weights).to(MB)
    activations = (activation_factor * weights).to(MB)
    persistent = (weights + gradients + state).to(MB)
    total = (persistent + activations).to(MB)
    forward = weights + activations
    backward = activations + weights + gradients
    optimizer = (weights + gradients + state) + (weights + state)
    step = (forward + backward + optimizer).to(MB)
    reads = (3 * weights).to(MB)
    floor = _ratio(persistent / weights)
    return {
        "weights": weights,
        "gradients": gradients,
        "optimizer_state": state,
        "activations": activations,
        "persistent": persistent,
        "total": total,
        "amplification": _ratio(total / weights),
        "floor": floor,
        "ceiling": floor + activation_factor_high,
        "forward_traffic": forward.to(MB),
        "backward_traffic": backward.to(MB),
        "optimizer_traffic": optimizer.to(MB),
        "step_traffic": step,
        "weight_reads": reads,
        "traffic_ratio": _ratio(step / weights),
        "weight_read_share": _ratio(reads / step),
        "step_floor": None if bandwidth is None else (step / bandwidth).to(MS),
    }


# -- §5-§6 -------------------------------------------------------------------------------
def dense_network(*, layer_widths: list[int], batch_size: int = 1, bytes_per_value: Any,
                  optimizer_bytes_per_parameter: Any, training_examples: Any = None) -> dict[str, Any]:
    w, b, v = layer_widths, batch_size, bytes_per_value
    layers = len(w) - 1
    weights_per_layer = [w[k - 1] * w[k] for k in range(1, layers + 1)]
    biases_per_layer = w[1:]
    weights = sum(weights_per_layer)
    biases = sum(biases_per_layer)
    parameters = weights + biases
    matmul_per_layer = [2 * b * n for n in weights_per_layer]
    elementwise_per_layer = [2 * b * n for n in biases_per_layer]
    matmul = sum(matmul_per_layer)
    elementwise = sum(elementwise_per_layer)
    forward = matmul + elementwise
    parameter_bytes = (parameters * v).to(BYTE)
    traffic_values = b * (w[0] + 2 * sum(w[1:layers]) + w[layers])
    traffic_bytes = (parameters * v + traffic_values * v).to(BYTE)
    input_gradient = sum(matmul_per_layer[1:])
    training_step = 2 * matmul + input_gradient
    per_example = sum(w)
    saved = b * per_example
    live = b * max(w[k - 1] + w[k] for k in range(1, layers + 1))
    saved_bytes = (saved * v).to(BYTE)
    live_bytes = (live * v).to(BYTE)
    gradient_bytes = (parameters * v).to(BYTE)
    optimizer_bytes = (parameters * optimizer_bytes_per_parameter).to(BYTE)
    training_memory = parameter_bytes + saved_bytes + gradient_bytes + optimizer_bytes
    inference_memory = parameter_bytes + live_bytes
    examples = None if training_examples is None else int(training_examples.m_as(COUNT))
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
            "flops_per_example": 2 * weights * FLOP,
            "first_layer_share": weights_per_layer[0] / weights,
            "matmul_flops_per_layer": [n * FLOP for n in matmul_per_layer],
            "elementwise_flops_per_layer": [n * FLOP for n in elementwise_per_layer],
            "matmul_flops": matmul * FLOP,
            "elementwise_flops": elementwise * FLOP,
            "forward_flops": forward * FLOP,
            "forward_flops_per_example": forward / b * FLOP,
            "matmul_share": matmul / forward,
            "elementwise_share": elementwise / forward,
            "parameter_bytes": parameter_bytes,
            "traffic_values": traffic_values,
            "traffic_bytes": traffic_bytes,
            "intensity": (forward * FLOP / traffic_bytes).to(FLOP_PER_BYTE),
            "weight_gradient_flops": matmul * FLOP,
            "input_gradient_flops": input_gradient * FLOP,
            "training_step_flops": training_step * FLOP,
            "training_flops_ratio": training_step / matmul,
            "activation_values_per_layer": [b * width for width in w],
            "activation_values_per_example": per_example,
            "saved_activation_values": saved,
            "saved_activation_bytes": saved_bytes,
            "inference_activation_values": live,
            "inference_activation_bytes": live_bytes,
            "gradient_bytes": gradient_bytes,
            "optimizer_bytes": optimizer_bytes,
            "training_memory": training_memory,
            "inference_memory": inference_memory,
            "training_memory_ratio": _ratio(training_memory / inference_memory),
            "steps_per_epoch": None if examples is None else examples // b,
            "layer_widths": list(w),
            "batch_size": b,
        },
    }


# -- §7 ----------------------------------------------------------------------------------
def _intensity(w: list[int], b: int, v: Any) -> Any:
    """Forward FLOPs over forward traffic (weights once plus activations), in flop/byte."""
    layers = len(w) - 1
    parameters = sum(w[k - 1] * w[k] + w[k] for k in range(1, layers + 1))
    traffic = (parameters * v + b * (w[0] + 2 * sum(w[1:layers]) + w[layers]) * v).to(BYTE)
    return (2 * b * parameters * FLOP / traffic).to(FLOP_PER_BYTE)


def epoch_overhead(*, network: dict[str, Any], host_peak: Any, host_bandwidth: Any, accelerator_peak: Any,
                   accelerator_bandwidth: Any, dispatch: Any, launch: Any, dram_energy_per_byte: Any,
                   flop_energy: Any) -> dict[str, Any]:
    w, b, v = network["layer_widths"], network["batch_size"], network["bytes_per_value"]
    layers = len(w) - 1
    weights_per_layer = [w[k - 1] * w[k] for k in range(1, layers + 1)]
    intensity = _intensity(w, b, v)
    intensity1 = _intensity(w, 1, v)
    steps = int(network["training_examples"].m_as(COUNT)) // b
    step_flops = (4 * b * sum(weights_per_layer) + 2 * b * sum(weights_per_layer[1:])) * FLOP
    ops = 4 * layers
    peak = {"host": host_peak.to(FLOP_S), "accelerator": accelerator_peak.to(FLOP_S)}
    bandwidth = {"host": host_bandwidth.to(BYTE_S), "accelerator": accelerator_bandwidth.to(BYTE_S)}
    cost = {"host": dispatch.to(US), "accelerator": (dispatch + launch).to(US)}
    table: dict[str, dict[str, Any]] = {name: {} for name in (
        "ridge", "rate_batch1", "rate", "batching_speedup", "work_time", "overhead_time", "total_time")}
    for machine in ("host", "accelerator"):
        p, beta = peak[machine], bandwidth[machine]
        rate1 = min(p, (beta * intensity1).to(FLOP_S))
        rate = min(p, (beta * intensity).to(FLOP_S))
        work = (steps * step_flops / rate).to(MS)
        overhead = (steps * ops * cost[machine]).to(MS)
        table["ridge"][machine] = (p / beta).to(FLOP_PER_BYTE)
        table["rate_batch1"][machine] = rate1
        table["rate"][machine] = rate
        table["batching_speedup"][machine] = _ratio(rate / rate1)
        table["work_time"][machine] = work
        table["overhead_time"][machine] = overhead
        table["total_time"][machine] = work + overhead
    accelerator_total = table["total_time"]["accelerator"]
    return {
        "result": {
            "steps": steps,
            "step_flops": step_flops,
            "ops_per_step": ops,
            "peak": peak,
            "bandwidth": bandwidth,
            "ridge": table["ridge"],
            "rate_batch1": table["rate_batch1"],
            "rate": table["rate"],
            "batching_speedup": table["batching_speedup"],
            "work_time": table["work_time"],
            "per_op_cost": cost,
            "overhead_time": table["overhead_time"],
            "total_time": table["total_time"],
            "work_speedup": _ratio(table["work_time"]["host"] / table["work_time"]["accelerator"]),
            "overhead_share_accelerator": _ratio(table["overhead_time"]["accelerator"] / accelerator_total),
            "movement_to_arithmetic_energy": _ratio(dram_energy_per_byte / intensity / flop_energy),
            "movement_to_arithmetic_energy_batch1": _ratio(dram_energy_per_byte / intensity1 / flop_energy),
        },
    }
