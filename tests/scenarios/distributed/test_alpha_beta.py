"""AlphaBetaScenario: the three registry entries by hand, the grid of times by path and message, domains, exact sympy."""

from __future__ import annotations

import pytest
from conftest import assert_matches_exact, exact_outputs, flatten
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import AlphaBetaScenario, Q_, ScenarioInputError, Scenarios
from symbolic.scenarios.distributed.alpha_beta import AlphaBetaScenario as Declared

GBPS = 1e9 / 8  # one Gb/s in B/s


def seconds(grid: dict) -> dict:
    return {path: {name: t.to("s").magnitude for name, t in row.items()} for path, row in grid.items()}


def test_ndr_and_roce_by_hand():
    """distributed.md §3: α + M/β. NDR: 1.5 µs + 4000/5e10 = 1.58 µs, 1.5 µs + 3.5e8/5e10 = 7.0015 ms; RoCE 100G:
    5 µs + 4000/1.25e10 = 5.32 µs, 5 µs + 28 ms; RoCE 400G: 5 µs + 0.08 µs, 5 µs + 7 ms. n* = α·β."""
    r = Scenarios.AlphaBetaNdrRoce.result
    expected = {"NDR": {"control": 1.58e-06, "shard": 0.0070015},
                "RoCE 100G": {"control": 5.32e-06, "shard": 0.028005},
                "RoCE 400G": {"control": 5.08e-06, "shard": 0.007005}}
    paths = {"NDR": (1.5e-6, 400 * GBPS), "RoCE 100G": (5e-6, 100 * GBPS), "RoCE 400G": (5e-6, 400 * GBPS)}
    times = seconds(r.times)
    assert list(times) == list(expected) and all(list(times[p]) == ["control", "shard"] for p in times)
    for path, (alpha, beta) in paths.items():
        for name, size in (("control", 4000), ("shard", 3.5e8)):
            assert times[path][name] == pytest.approx(expected[path][name], rel=1e-9), (path, name)
            assert times[path][name] == pytest.approx(alpha + size / beta, rel=1e-12), (path, name)
            assert r.transmission_times[path][name].to("s").magnitude == pytest.approx(size / beta, rel=1e-12)
        assert r.crossovers[path].to("byte").magnitude == pytest.approx(alpha * beta, rel=1e-12), path
    crossovers = [r.crossovers[p].to("byte").magnitude for p in paths]
    assert crossovers == pytest.approx([75000.0, 62499.99999999999, 249999.99999999997], rel=1e-9)


def test_hdr_and_ndr_small_message_by_hand():
    """10 kB at 1.5 µs: 1.5 µs + 1e4/2.5e10 = 1.9 µs over HDR, + 1e4/5e10 = 1.7 µs over NDR."""
    r = Scenarios.AlphaBetaHdrNdrSmallMessage.result
    assert seconds(r.times) == {"HDR": {"small": pytest.approx(1.9e-06, rel=1e-9)},
                                "NDR": {"small": pytest.approx(1.7e-06, rel=1e-9)}}
    assert r.crossovers["HDR"].to("byte").magnitude == pytest.approx(37500.0, rel=1e-9)
    assert r.crossovers["NDR"].to("byte").magnitude == pytest.approx(75000.0, rel=1e-9)


def test_critical_sizes_by_interconnect():
    """Mid-range α times bandwidth: NVLink 1.5 µs × 450 GB/s = 675 kB; PCIe Gen5 3.5 µs × 64 GB/s = 224 kB;
    RoCE 7.5 µs × 12.5 GB/s = 93.75 kB; HDR 3.5 µs × 25 GB/s = 87.5 kB; NDR 1.5 µs × 50 GB/s = 75 kB.
    No messages: every path's row is empty."""
    r = Scenarios.CriticalSizeByInterconnect.result
    expected = {"NVLink": 675000.0, "PCIe Gen5": 224000.0, "RoCE": 93749.99999999999, "HDR": 87500.0, "NDR": 75000.0}
    assert {p: c.to("byte").magnitude for p, c in r.crossovers.items()} == pytest.approx(expected, rel=1e-9)
    assert r.crossovers["NVLink"].to("byte").magnitude == pytest.approx(1.5e-6 * 450e9, rel=1e-12)
    assert r.times == {p: {} for p in expected} and r.transmission_times == {p: {} for p in expected}
    assert r.messages == {}


def test_bandwidths_are_read_in_the_order_of_the_paths():
    """bandwidths may list the paths in another order: each path reads its own; a path alphas lacks is
    refused, as no output would read it (issue 24: it was kept and shown nowhere)."""
    s = Scenarios.AlphaBetaHdrNdrSmallMessage.variant(bandwidths={"NDR": Q_(400, "Gbps"), "HDR": Q_(200, "Gbps")})
    assert seconds(s.result.times)["HDR"]["small"] == pytest.approx(1.9e-6, rel=1e-12)
    assert {p: b.to("Gbps").magnitude for p, b in s.result.bandwidths.items()} == {"HDR": 200, "NDR": 400}
    with pytest.raises(ScenarioInputError, match="bandwidths"):
        Scenarios.AlphaBetaHdrNdrSmallMessage.variant(bandwidths={"HDR": Q_(200, "Gbps")})
    with pytest.raises(ScenarioInputError, match=r"input 'bandwidths' has an entry for 'spare', which no output reads: "
                                                 r"its keys must be those of 'alphas' \('HDR', 'NDR'\)"):
        Scenarios.AlphaBetaHdrNdrSmallMessage.variant(
            bandwidths={"spare": Q_(1, "Gbps"), "NDR": Q_(400, "Gbps"), "HDR": Q_(200, "Gbps")})


def test_zero_alpha_and_zero_message():
    s = Scenarios.AlphaBetaHdrNdrSmallMessage.variant(alphas={"HDR": 0, "NDR": Q_(1.5, "µs")},
                                                      messages={"empty": 0, "small": Q_(10, "kB")})
    assert s.result.crossovers["HDR"].magnitude == 0
    assert s.result.times["NDR"]["empty"].to("µs").magnitude == pytest.approx(1.5)
    assert s.result.times["HDR"]["small"].to("s").magnitude == pytest.approx(1e4 / 2.5e10, rel=1e-12)


@pytest.mark.parametrize(("changes", "match"), [
    ({"bandwidths": {"HDR": 0, "NDR": 1}}, r"'bandwidths' entry \['HDR'\] got 0"),
    ({"alphas": {"HDR": Q_(-1, "µs"), "NDR": 1}}, r"'alphas' entry \['HDR'\] got -1"),
    ({"alphas": {"HDR": Q_(1, "GB"), "NDR": 1}}, "'alphas'"),
    ({"messages": {"small": Q_(-1, "byte")}}, r"'messages' entry \['small'\] got -1"),
    ({"messages": {"small": Q_(1, "s")}}, "'messages'"),
])
def test_domains(changes, match):
    with pytest.raises(ScenarioInputError, match=match):
        Scenarios.AlphaBetaHdrNdrSmallMessage.variant(**changes)


@settings(max_examples=40, deadline=None)
@given(paths=st.lists(st.tuples(st.floats(0, 1e3, allow_subnormal=False), st.floats(1e-3, 1e4)), max_size=3),
       sizes=st.lists(st.just(0.0) | st.floats(1e-3, 1e12), max_size=3))
def test_evaluator_equals_exact_sympy(paths, sizes):
    s = AlphaBetaScenario(alphas={f"p{n}": a for n, (a, _) in enumerate(paths)},
                          bandwidths={f"p{n}": b for n, (_, b) in enumerate(paths)},
                          messages={f"m{n}": m for n, m in enumerate(sizes)})
    assert_matches_exact(flatten(s.evaluate()), exact_outputs(Declared.model, s._args), rel=1e-11)
    assert len(s.evaluate()["result"]["times"]) == len(paths) * len(sizes)  # the grid, row by row
