"""HostDispatchScenario: the five registry entries by hand, defaults, and exact agreement."""

from __future__ import annotations

import math

import pytest
from conftest import exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import HostDispatchScenario, Q_, Scenarios
from symbolic.scenarios.framework.host_dispatch import HostDispatchScenario as Declared

# (entry, ops_per_block, blocks, dispatch µs, launch µs, device_time µs, overhead_ratio from REFERENCE §9.2)
ENTRIES = [
    ("SmallKernelDispatch", 1, 1, 10, 5, 1, 15.0),
    ("LargeKernelDispatch", 1, 1, 10, 5, 100, 0.15),
    ("SmallMlpDispatch", 6, 1, 10, 5, 2.6, 34.61538461538461),
    ("Gpt3BlockDispatch", 12, 1, 10, 5, 100_000, 0.0018000000000000002),
    # device_time: 1.5e9 fp16 parameters (2 byte each) read at 3.35 TB/s = 895.52... µs
    ("Gpt2XlEagerDecodeDispatch", 12, 48, 10, 5, 1.5e9 * 2 / 3.35e12 * 1e6, 9.648),
]


@pytest.mark.parametrize("key, n, k, d, ell, T, ratio", ENTRIES)
def test_registry_entries_by_hand(key, n, k, d, ell, T, ratio):
    s = getattr(Scenarios, key)
    host_time = k * n * d + k * n * ell  # launches default to one per operation
    assert (s.ops_per_block, s.blocks, s.launches_per_block) == (n, k, None)
    assert s.operations == k * n and s.launches == k * n
    assert s.per_op_cost == Q_(d + ell, "µs")
    assert s.dispatch_time.to("µs").magnitude == k * n * d
    assert s.launch_time.to("µs").magnitude == k * n * ell
    assert s.host_time.to("µs").magnitude == host_time
    assert s.device_time.to("µs").magnitude == pytest.approx(T, rel=1e-12)
    assert s.overhead_ratio == pytest.approx(ratio, rel=1e-9)
    assert s.overhead_ratio == pytest.approx(host_time / T, rel=1e-12)
    assert s.launch_ratio == pytest.approx(k * n * ell / T, rel=1e-12)
    assert s.host_share == pytest.approx(host_time / (host_time + T), rel=1e-12)
    assert s.speedup_limit == pytest.approx(1 + host_time / T, rel=1e-12)
    assert isinstance(s.name, str) and s.name and isinstance(s.description, str) and s.description


def test_reference_names():
    assert Scenarios.SmallKernelDispatch.name == "One small eager operation: a short element-wise kernel"
    assert Scenarios.Gpt2XlEagerDecodeDispatch.name == "Eager host work to issue one GPT-2 XL decode step on an H100"


def test_launches_default_to_operations_and_can_differ():
    s = HostDispatchScenario(ops_per_block=3, blocks=2, dispatch=10, launch=5, device_time=100)
    assert s.launches == 6
    t = s.variant(launches_per_block=0)
    assert t.launches == 0 and t.launch_time.magnitude == 0 and t.host_time.magnitude == 60


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(0, 10**6), k=st.integers(1, 10**4), lam=st.none() | st.integers(0, 10**6),
    d=st.floats(0, 1e6, allow_subnormal=False), ell=st.floats(0, 1e6, allow_subnormal=False), T=st.floats(1e-6, 1e9),
)
def test_evaluator_equals_exact_sympy(n, k, lam, d, ell, T):
    s = HostDispatchScenario(ops_per_block=n, blocks=k, launches_per_block=lam, dispatch=d, launch=ell, device_time=T)
    got = flatten(s.evaluate())
    exact = exact_outputs(Declared.model, dict(s._args))
    assert set(got) == set(exact)
    for name, value in exact.items():
        if isinstance(got[name], int):
            assert got[name] == int(value), name
        else:
            assert math.isclose(got[name], float(value), rel_tol=1e-12, abs_tol=1e-300), name


def test_this_machines_eager_torch_step_by_hand():
    """10 Python-level entries (9 aten operations and backward()) at the measured eager-op cost, no
    launches, backward() at its measured fixed cost plus 11 graph nodes at the per-node cost."""
    from generated import Constants, Scenarios

    cpu = Constants.MeasuredCpu
    host = Scenarios.EagerTorchMlpStepHostOnThisCpu
    expected = 10 * cpu.EagerTorchOp + cpu.BackwardFixed + 11 * cpu.BackwardPerNode
    assert host.host_time.to("µs").magnitude == pytest.approx(expected.to("µs").magnitude)
    assert host.launch_time.magnitude == 0
    assert host.device_time.to("µs").magnitude == pytest.approx(13100608 / cpu.MatmulFp32.to("flop/µs").magnitude)
