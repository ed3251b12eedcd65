"""A chart's declaration names things that exist: a misspelt instance, input or output is a
declaration error naming it, found when the generator runs (not a page without its chart)."""

from __future__ import annotations

import dataclasses

import pytest

from symbolic.codegen.charts import check_chart
from symbolic.scenarios.discover import discover
from symbolic.runtime.errors import DeclarationError


@pytest.fixture(scope="module")
def module():
    return next(m for m in discover() if m.name == "host_dispatch")


def test_the_declared_chart_passes(module):
    check_chart(module, module.model.chart)


@pytest.mark.parametrize("change, words", [
    ({"instance": "NoSuchEntry"}, ["'NoSuchEntry' is not a registry entry of host_dispatch", "SmallKernelDispatch"]),
    ({"input": "batch"}, ["varies 'batch', which is not a numeric input", "dispatch"]),
])
def test_a_misspelt_instance_or_input_is_named(module, change, words):
    with pytest.raises(DeclarationError) as refused:
        check_chart(module, dataclasses.replace(module.model.chart, **change))
    for word in words:
        assert word in str(refused.value)


def test_a_series_naming_an_input_or_nothing_is_named(module):
    chart = module.model.chart
    for name, extra in (("dispatch", "it is an input"), ("host_tim", "")):
        series = (dataclasses.replace(chart.series[0], quantity=name),)
        with pytest.raises(DeclarationError, match=f"chart series '{name}' is not an output") as refused:
            check_chart(module, dataclasses.replace(chart, series=series))
        assert extra in str(refused.value)
