"""The in-process search engine against brute force: a numpy evaluation of the whole grid and a
Python loop over the class API (every point built, validated and evaluated one by one)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import Hardware, Models, Q_, Scenarios
from symbolic.runtime.errors import ScenarioInputError
from symbolic.runtime.search import EACH_PRECISION, every, powers_of_two, search

BASE = Scenarios.HierarchicalAllReduce8x8DgxH100
# n_nodes 0 is outside the domain; n_nodes = gpus = 1 fails the class's requirement (≥ 2 devices);
# a 1e300 GB message overflows double precision: all three are invalid points.
VARY = {"n_nodes": [0, 1, 2, 3, 4, 8], "gpus_per_node": [1, 2, 4, 8], "message": [0.1, 1, 10, 1e300],
        "inter_alpha": Q_(np.array([0, 1.5, 5]), "µs")}
WHERE = ["result.total_time <= 400 ms", "n_devices >= 4"]


def class_api_loop(where, key):
    """Every point through the class API, in the space's row-major order: (invalid, feasible rows)."""
    invalid, rows = 0, []
    for position, values in enumerate(itertools.product(*(list(v) for v in VARY.values()))):
        point = dict(zip(VARY, values, strict=True))
        try:
            scenario = BASE.variant(**point)
            scenario.result.total_time  # noqa: B018 (evaluation may overflow: the class refuses it)
        except ScenarioInputError:
            invalid += 1
            continue
        if where(scenario):
            rows.append((key(scenario), position, point))
    return invalid, sorted(rows, key=lambda row: (row[0], row[1]))


def feasible(s):
    return s.result.total_time <= Q_(400, "ms") and s.n_devices >= 4


def test_top_k_equals_a_loop_over_the_class_api() -> None:
    found = search(BASE, VARY, WHERE, minimize="result.total_time", top=5)
    invalid, rows = class_api_loop(feasible, lambda s: s.result.total_time.to("s").magnitude)
    assert found.size == 6 * 4 * 4 * 3
    assert (found.invalid, found.feasible) == (invalid, len(rows))
    assert found.evaluated == found.size - invalid
    for row, (value, _, point) in zip(found.rows, rows[:5], strict=True):
        assert row.objectives["result.total_time"][0] == pytest.approx(value, rel=1e-12)
        assert row.scenario == BASE.variant(**point)
        assert row.outputs["result.total_time"] == (pytest.approx(value, rel=1e-12), "s")


def test_maximize_equals_the_loop_too() -> None:
    found = search(BASE, VARY, WHERE, maximize="result.speedup_vs_flat_ring", top=3)
    _, rows = class_api_loop(feasible, lambda s: -s.result.speedup_vs_flat_ring)
    assert [r.objectives["result.speedup_vs_flat_ring"][0] for r in found.rows] == pytest.approx(
        [-value for value, _, _ in rows[:3]], rel=1e-12)


def numpy_brute_force(objectives):
    """The whole grid at once through the raw evaluator: (invalid, feasible, keys, valid positions)."""
    values = [np.asarray(VARY["n_nodes"], float), np.asarray(VARY["gpus_per_node"], float),
              np.asarray(VARY["message"], float), np.array([0, 1.5, 5])]
    grids = [g.ravel() for g in np.meshgrid(*values, indexing="ij")]
    args = dict(BASE._args, n_nodes=grids[0], gpus_per_node=grids[1], message=grids[2], inter_alpha=grids[3])
    with np.errstate(all="ignore"):
        out = type(BASE)._evaluate(**args)
    result = out["result"]
    valid = (grids[0] > 0) & (grids[0] * grids[1] >= 2)
    for value in list(result.values()) + [out["n_devices"]]:
        valid &= np.isfinite(np.broadcast_to(value, grids[0].shape))
    ok = valid & (result["total_time"] <= 0.4) & (out["n_devices"] >= 4)
    keys = np.stack([sign * np.broadcast_to(result[name], ok.shape) for sign, name in objectives], axis=1)
    # positions among the valid-domain points (n_nodes 0 dropped from its axis)
    positions = np.cumsum(grids[0] > 0) - 1
    return int((~valid).sum()), int(ok.sum()), keys[ok], positions[ok]


def test_top_k_and_counts_equal_a_numpy_brute_force() -> None:
    invalid, count, keys, positions = numpy_brute_force([(1, "total_time")])
    found = search(BASE, VARY, WHERE, minimize="result.total_time", top=7, chunk_points=5)
    order = np.lexsort((positions, keys[:, 0]))[:7]
    assert (found.invalid, found.feasible) == (invalid, count)
    assert [r.objectives["result.total_time"][0] for r in found.rows] == keys[order, 0].tolist()


def test_pareto_front_equals_a_pairwise_brute_force() -> None:
    objectives = [(1, "total_time"), (-1, "speedup_vs_flat_ring")]
    _, _, keys, positions = numpy_brute_force(objectives)
    front = [i for i in range(len(keys))
             if not any((np.all(keys[j] <= keys[i]) and (np.any(keys[j] < keys[i]) or positions[j] < positions[i]))
                        for j in range(len(keys)) if j != i)]
    expected = sorted((tuple(keys[i]), positions[i]) for i in front)
    found = search(BASE, VARY, WHERE, minimize="result.total_time", maximize="result.speedup_vs_flat_ring",
                   top=1000, chunk_points=7)
    assert found.front == len(front)
    got = [(r.objectives["result.total_time"][0], -r.objectives["result.speedup_vs_flat_ring"][0])
           for r in found.rows]
    assert got == [key for key, _ in expected]


def test_three_objectives_pareto_agrees_across_chunkings() -> None:
    kwargs = dict(minimize=["result.total_time", "result.inter_time"], maximize="result.speedup_vs_flat_bound",
                  top=1000)
    whole = search(BASE, VARY, WHERE, chunk_points=10**6, **kwargs)
    parts = search(BASE, VARY, WHERE, chunk_points=3, **kwargs)
    assert whole.front == parts.front and [r.inputs for r in whole.rows] == [r.inputs for r in parts.rows]
    for row in whole.rows:  # no row dominates another
        for other in whole.rows:
            a = [row.objectives[k][0] * (-1 if "speedup" in k else 1) for k in row.objectives]
            b = [other.objectives[k][0] * (-1 if "speedup" in k else 1) for k in other.objectives]
            assert not (all(x <= y for x, y in zip(b, a, strict=True)) and b != a)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 80), st.integers(1, 12))
def test_any_chunking_gives_the_same_answer(chunk_points: int, top: int) -> None:
    reference = search(BASE, VARY, WHERE, minimize="result.inter_time", top=top, chunk_points=10**6)
    found = search(BASE, VARY, WHERE, minimize="result.inter_time", top=top, chunk_points=chunk_points)
    assert [r.inputs for r in found.rows] == [r.inputs for r in reference.rows]
    assert (found.invalid, found.feasible, found.evaluated) == (reference.invalid, reference.feasible,
                                                                reference.evaluated)


def test_catalog_sets_and_precisions_count_invalid_combinations_like_the_class() -> None:
    base = Scenarios.Llama2_70B_DecodeH100
    vary = {"hardware": every(Hardware.Cloud), "peak_precision": ["fp16", "fp8", "int8"], "batch_size": [1, 16]}
    found = search(base, vary, "result.weight_bytes <= hardware.memory_capacity", minimize="result.compute_time",
                   top=4)
    invalid, rows = 0, []
    for position, (node, precision, batch) in enumerate(itertools.product(*vary.values())):
        try:
            scenario = base.variant(hardware=node, peak_precision=precision, batch_size=batch)
        except ScenarioInputError:
            invalid += 1
            continue
        if not scenario.fits:  # its compute time does not exist: a point the search skips, with that reason
            invalid += 1
            continue
        if scenario.result.weight_bytes <= node.memory_capacity:
            rows.append((scenario.result.compute_time.to("ms").magnitude, position, scenario))
    rows.sort(key=lambda row: row[:2])
    assert (found.size, found.invalid, found.feasible) == (31 * 3 * 2, invalid, len(rows))
    assert [r.scenario for r in found.rows] == [s for _, _, s in rows[:4]]


def test_each_precision_expands_per_node() -> None:
    base = Scenarios.Llama2_70B_DecodeH100.variant(workload=Models.Language.Llama3_8B)  # 16 GB: fits every node
    nodes = [Hardware.Cloud.H100, Hardware.Cloud.A100, Hardware.Cloud.Cerebras_CS3]
    found = search(base, {"hardware": nodes, "peak_precision": EACH_PRECISION}, minimize="result.compute_time",
                   top=100)
    assert found.size == found.evaluated == len(nodes[0].precisions) + len(nodes[1].precisions) + 1
    assert {(r.inputs["hardware"], r.inputs["peak_precision"]) for r in found.rows} == {
        (node, key) for node in nodes for key in (node.precisions or ("peak",))}


def test_unset_catalog_fields_are_invalid_and_integers_stay_exact() -> None:
    base = Scenarios.Llama2_70B_DecodeH100
    found = search(base, {"hardware": every(Hardware.Cloud), "tp_size": powers_of_two(1, 8)},
                   minimize="hardware.unit_cost * tp_size", top=2)
    priced = [n for n in every(Hardware.Cloud) if n.unit_cost is not None]
    assert found.invalid == (31 - len(priced)) * 4 and found.evaluated == len(priced) * 4
    cheapest = min(priced, key=lambda n: n.unit_cost.magnitude)
    assert found.best.inputs["hardware"] == cheapest and found.best.inputs["tp_size"] == 1
    assert type(found.best.scenario.tp_size) is int
    assert found.best.objectives["hardware.unit_cost * tp_size"] == (cheapest.unit_cost.magnitude, "dollar")


def test_no_feasible_point_and_bad_requests() -> None:
    found = search(BASE, VARY, "result.total_time <= 0 s", minimize="result.total_time")
    assert found.rows == [] and found.feasible == 0 and found.evaluated > 0
    with pytest.raises(ScenarioInputError, match="unknown input 'n_node'; did you mean n_nodes"):
        search(BASE, {"n_node": [1]}, minimize="result.total_time")
    with pytest.raises(ScenarioInputError, match="beyond 2\\*\\*53"):
        search(BASE, {"n_nodes": [2**60]}, minimize="result.total_time")
    with pytest.raises(ScenarioInputError, match="unknown name 'result.totl_time'"):
        search(BASE, VARY, minimize="result.totl_time")
    with pytest.raises(ScenarioInputError, match="give an objective"):
        search(BASE, VARY)
    with pytest.raises(ScenarioInputError, match="top must be"):
        search(BASE, VARY, minimize="result.total_time", top=0)
    with pytest.raises(ScenarioInputError, match="expected a quantity of \\[data\\]"):
        search(BASE, {"message": [Q_(1, "ms")]}, minimize="result.total_time")


def test_a_class_is_built_from_fixed_inputs_and_the_first_values() -> None:
    cls = type(BASE)
    fixed = {k: v for k, v in BASE.inputs().items() if k not in VARY}
    found = search(cls, {k: v for k, v in VARY.items() if k != "n_nodes"}, WHERE, fixed={"n_nodes": 8, **fixed},
                   minimize="result.total_time", top=3)
    same = search(BASE, {k: v for k, v in VARY.items() if k != "n_nodes"}, WHERE, minimize="result.total_time", top=3)
    assert [r.inputs for r in found.rows] == [r.inputs for r in same.rows]


def test_objectives_and_constraints_of_one_axis_broadcast_over_the_others() -> None:
    base = Scenarios.Llama2_70B_DecodeH100
    priced = [n for n in every(Hardware.Cloud) if n.unit_cost is not None]
    found = search(base, {"hardware": priced, "batch_size": [1, 8, 64]}, "tp_size == 1",
                   minimize="hardware.unit_cost", maximize="result.peak_fraction", top=100)
    expected = []  # the front by hand: cheaper, or better used at the same or a higher price
    points = [(n.unit_cost.magnitude, -base.variant(hardware=n, batch_size=b).result.peak_fraction, n, b)
              for n in priced for b in (1, 8, 64)]
    for cost, fraction, node, batch in points:
        if not any(c <= cost and f <= fraction and (c, f) != (cost, fraction) for c, f, _, _ in points):
            if (cost, fraction) not in [(c, f) for c, f, _, _ in expected]:
                expected.append((cost, fraction, node, batch))
    expected.sort(key=lambda p: (p[0], p[1]))
    assert [(r.inputs["hardware"], r.inputs["batch_size"]) for r in found.rows] == [(n, b) for _, _, n, b in expected]
    assert found.feasible == found.evaluated == 3 * len(priced)


def test_long_axes_are_checked_like_short_ones_and_an_empty_space_is_all_invalid() -> None:
    values = np.concatenate([np.arange(-5, 3000), [0.5, np.nan, np.inf]])  # long: the vectorised path
    long = search(BASE, {"n_nodes": values}, "n_devices >= 0", minimize="result.total_time", top=2)
    short = search(BASE, {"n_nodes": [-1, 0, 0.5, float("inf"), 1, 2]}, "n_devices >= 0", minimize="result.total_time", top=2)
    assert long.size == len(values) and long.evaluated == 3000 - 1 and long.invalid == len(values) - 2999
    assert short.evaluated == 2 and short.invalid == 4
    assert [r.inputs for r in long.rows] == [r.inputs for r in short.rows] == [{"n_nodes": 1}, {"n_nodes": 2}]
    empty = search(BASE, {"n_nodes": [0, -1]}, minimize="result.total_time")
    assert (empty.size, empty.evaluated, empty.invalid, empty.feasible, empty.rows) == (2, 0, 2, 0, [])


@pytest.mark.parametrize("chunk_points", [1, 3, 100])
def test_a_point_whose_objective_is_undefined_is_feasible_and_counted_as_unranked(chunk_points: int) -> None:
    """1 / (n_nodes - 2) has no value at n_nodes = 2: that point meets every constraint (it is
    feasible) but cannot be ranked; the result says so rather than silently dropping it."""
    nodes = [1, 2, 3, 4]  # n_nodes = 1 with 8 GPUs per node is valid (8 devices)
    found = search(BASE, {"n_nodes": nodes}, "n_nodes <= 3", minimize="1 / (n_nodes - 2)", top=10,
                   chunk_points=chunk_points)
    assert (found.size, found.evaluated, found.invalid, found.feasible, found.unranked) == (4, 4, 0, 3, 1)
    assert [(r.inputs["n_nodes"], r.objectives["1 / (n_nodes - 2)"][0]) for r in found.rows] == [(1, -1.0), (3, 1.0)]
    assert found.to_dict()["unranked"] == 1
    nowhere = search(BASE, {"n_nodes": nodes}, minimize="1 / (n_nodes - n_nodes)", chunk_points=chunk_points)
    assert (nowhere.feasible, nowhere.unranked, nowhere.rows) == (4, 4, [])
    plain = search(BASE, {"n_nodes": nodes}, minimize="n_nodes", chunk_points=chunk_points)
    assert (plain.feasible, plain.unranked) == (4, 0)


def test_an_objective_dividing_by_zero_between_unvaried_inputs_leaves_every_point_unranked() -> None:
    """gpus_per_node is not varied (a plain number): its x/0 is inf at every point, not a crash."""
    found = search(BASE, {"n_nodes": [1, 2, 3]}, minimize="gpus_per_node / (gpus_per_node - gpus_per_node)")
    assert (found.feasible, found.unranked, found.rows) == (3, 3, [])


def test_a_dict_of_values_is_refused_not_searched_over_its_keys() -> None:
    from generated import Scenarios
    from symbolic.runtime.errors import ScenarioInputError

    with pytest.raises(ScenarioInputError, match="the values of 'batch_size' are a dict; give a list"):
        search(Scenarios.MnistTwoLayerTrainingStepOnH100, {"batch_size": {1: "x", 2: "y"}}, minimize="compute_time")


def test_a_catalog_tier_is_every_entry_in_it() -> None:
    from generated import Hardware, Scenarios

    base = Scenarios.Llama2_70B_DecodeH100
    tier = search(base, {"hardware": Hardware.Cloud}, minimize="result.compute_time", top=3)
    listed = search(base, {"hardware": every(Hardware.Cloud)}, minimize="result.compute_time", top=3)
    assert tier.size == listed.size == len(every(Hardware.Cloud))
    assert [r.inputs["hardware"] for r in tier.rows] == [r.inputs["hardware"] for r in listed.rows]


def test_a_root_of_tiers_is_refused_naming_the_tier() -> None:
    from generated import Models, Scenarios
    from symbolic.runtime.errors import InputTypeError

    with pytest.raises(InputTypeError, match="is the catalog tier Models.Language, not one entry"):
        search(Scenarios.Llama2_70B_DecodeH100, {"workload": Models}, minimize="result.compute_time")


def test_an_integer_past_2_53_is_refused_as_given_not_as_its_rounded_double() -> None:
    """2**53 + 1 rounds to 2**53 as a double, which passed the 2**53 check: the search ran at
    2**53 and reported batch_size 9007199254740992, a value nobody gave."""
    step = Scenarios.MnistTwoLayerTrainingStepOnH100
    assert search(step, {"batch_size": [2**53]}, minimize="compute_time").best.inputs["batch_size"] == 2**53
    for values in ([2**53 + 1], [np.int64(2**53 + 1)], [Q_(2**53 + 1, "")], [Q_(2**52 + 1, "kiloparam/param")],
                   np.array([2**53 + 1] * 1001), list(range(1, 1200)) + [2**53 + 1]):
        with pytest.raises(ScenarioInputError, match=r"beyond 2\*\*53"):
            search(step, {"batch_size": values}, minimize="compute_time")


def test_bytes_are_one_refused_value_and_expressions_must_be_text() -> None:
    """memoryview(b"12") and bytearray were iterated to their byte codes: batch sizes 49 and 50."""
    step = Scenarios.MnistTwoLayerTrainingStepOnH100
    for values in (b"12", bytearray(b"12"), memoryview(b"12")):
        with pytest.raises(ScenarioInputError, match=r"a value of 'batch_size' is (bytes|bytearray|memoryview)"):
            search(step, {"batch_size": values}, minimize="compute_time")
    for keyword, value in (("where", 5), ("where", [None]), ("minimize", b"compute_time")):
        with pytest.raises(ScenarioInputError, match=f"search: {keyword}= takes an expression"):
            search(step, {"batch_size": [1]}, **{"minimize": "compute_time", keyword: value})


def test_an_output_a_search_cannot_read_says_why_not_unknown_name() -> None:
    """egress_cost (egress_rate not given) and the list result.times were 'unknown name ...;
    did you mean egress_rate?', as if misspelt."""
    transfer = Scenarios.BufferTransfer10GB
    with pytest.raises(ScenarioInputError, match="'egress_cost' is unavailable at this instance"):
        search(transfer, {"copies": [1, 2]}, minimize="egress_cost * 2")
    for name in ("result.times", "result.times[HBM]"):
        with pytest.raises(ScenarioInputError, match="'result.times' is a list output"):
            search(transfer, {"copies": [1, 2]}, where=f"{name} <= 1 s", minimize="copies")
    with pytest.raises(ScenarioInputError, match="unknown name 'result.tmes'"):
        search(transfer, {"copies": [1, 2]}, minimize="result.tmes")


# -- why points are skipped, the axes every input takes, one name for two helpers -------------------
def first_of(class_name):
    return next(getattr(Scenarios, key) for key in Scenarios if type(getattr(Scenarios, key)).__name__ == class_name)


def test_every_skipped_point_is_counted_under_its_reason():
    """6·4·4·3 = 288 points: n_nodes = 0 is outside the domain for its 4·4·3 = 48 points, and
    n_nodes = gpus_per_node = 1 breaks the two-device requirement for 4·3 = 12; chunked or not."""
    for chunk_points in (7, 2**13):
        found = search(BASE, VARY, ["result.total_time <= 400 ms"], minimize="result.total_time",
                       chunk_points=chunk_points)
        assert found.skipped == {"a value of 'n_nodes' outside an integer ≥ 1": 48,
                                 "n_nodes × gpus_per_node must be at least 2: an AllReduce needs at least two "
                                 "devices": 12}
        assert sum(found.skipped.values()) == found.invalid == 60
        assert found.to_dict()["skipped"] == found.skipped


def test_entries_without_a_field_the_search_reads_are_counted_as_such():
    """The cheapest-hardware search: each cloud node without a price is skipped at every tp_size."""
    from symbolic.cli.search import summary

    nodes = every(Hardware.Cloud)
    unpriced = sum(1 for node in nodes if node.unit_cost is None)
    found = search(Scenarios.Llama2_70B_DecodeH100, {"hardware": nodes, "tp_size": powers_of_two(1, 8)},
                   where=["result.weight_bytes <= hardware.memory_capacity"], minimize="hardware.unit_cost * tp_size")
    reason = "'hardware.unit_cost' is not set for the entry (the search reads it)"
    assert unpriced > 0 and found.skipped == {reason: unpriced * 4} and found.invalid == unpriced * 4
    assert f"{unpriced * 4:,} skipped: {reason}" in summary(found)


def test_powers_of_two_with_one_bound_names_both_forms():
    with pytest.raises(ScenarioInputError, match=r"powers_of_two\(1, 8\).*exponent"):
        powers_of_two(8)


def test_a_fleet_axis_gives_what_each_fleet_gives_the_class():
    """TrainingRunScenario's fleet input takes a fleet or a node; the search reads both as the constructor does."""
    from generated import Systems

    base = first_of("TrainingRunScenario")
    fleets = [*every(Systems.Clusters), Hardware.Cloud.H100]
    found = search(base, {"fleet": fleets}, minimize="result.total_time", top=len(fleets))
    assert found.rows and found.evaluated + found.invalid == len(fleets)
    for row in found.rows:
        value, unit = row.objectives["result.total_time"]
        assert value == base.variant(fleet=row.inputs["fleet"]).result.total_time.to(unit).magnitude


def test_a_contained_scenario_axis_reads_each_instance_outputs():
    """ZeroSharding adds its `activations` scenario's activations: GPT-3 at micro-batch 1 and 4
    differ, and each searched point must be what the class gives (it read the base's before)."""
    base = first_of("ZeroShardingScenario")
    options = [getattr(Scenarios, key) for key in Scenarios if type(getattr(Scenarios, key)).__name__ ==
               "ActivationMemoryScenario" and getattr(Scenarios, key).workload == base.workload]
    assert len(options) >= 2
    found = search(base, {"activations": options, "activation_strategy": ["none", "selective", "full"]},
                   minimize="result.zero3_total_per_device", top=3 * len(options))
    assert len(found.rows) == 3 * len(options) and len({row.objectives["result.zero3_total_per_device"]
                                                         for row in found.rows}) == 3 * len(options)
    for row in found.rows:
        value, unit = row.objectives["result.zero3_total_per_device"]
        scalar = base.variant(**row.inputs).result.zero3_total_per_device.to(unit).magnitude
        assert value == pytest.approx(scalar, rel=1e-12)


def test_a_choice_default_is_the_signature_default():
    import inspect

    cls = type(first_of("ZeroShardingScenario"))
    assert inspect.signature(cls.__init__).parameters["activation_strategy"].default == "full"
