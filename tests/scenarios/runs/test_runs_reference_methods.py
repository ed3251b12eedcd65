"""The runs group's method with an argument, called as the reference's users call it.

AcceleratorComparison's registry entries (runs.md §10) are rebuilt with the reference's keywords and
`equivalent_hours(baseline_hours)` is called; the expected values are worked out by hand.
"""

from __future__ import annotations

import pytest

from generated import AcceleratorComparison, Hardware, Q_, Scenarios


@pytest.mark.parametrize(("candidate", "ratio"), [("H100", 989 / 125), ("B200", 2250 / 125)])
def test_equivalent_hours(candidate, ratio):
    """h / ρ: V100ToH100's 10,000 V100-hours are 10000/7.912 = 1263.9029322548029 H100-hours; on a B200 (ρ = 18)
    1000 V100-hours are 55.55... B200-hours."""
    s = AcceleratorComparison(name="rebuilt", description="", baseline=Hardware.Cloud.V100,
                              candidate=getattr(Hardware.Cloud, candidate))
    assert s == Scenarios.V100ToB200 if candidate == "B200" else s.variant(baseline_device_hours=10000) == \
        Scenarios.V100ToH100
    assert s.equivalent_hours(1000).to("h").magnitude == pytest.approx(1000 / ratio, rel=1e-12)
    assert s.equivalent_hours(baseline_hours=Q_(10000, "h")).to("h").magnitude == pytest.approx(10000 / ratio, rel=1e-12)
    if candidate == "H100":
        assert s.equivalent_hours(10000).to("h").magnitude == pytest.approx(1263.9029322548029, rel=1e-12)
