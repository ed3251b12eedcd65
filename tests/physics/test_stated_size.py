"""A model known only by its stated size (DLRM, 100 GB at 16-bit storage) in the data-parallel scenarios:
priced at fp16/bf16, where that size is exact, refused by name at any other width (issue #29)."""

import pytest

from generated import Q_, Models, Scenarios
from symbolic.runtime.errors import MlsysymError

DLRM = Models.Recommendation.DLRM
SYNC = Scenarios.Gpt3GradientSync  # InfiniBand HDR (200 Gb/s) and 100 Gb/s Ethernet
SCALE_OUT = Scenarios.Gpt2DataParallelFourNodes10GbE


def test_gradient_sync_allreduces_the_stated_size_at_16_bit():
    result = SYNC.variant(workload=DLRM).result
    # hand: a large ring sends 2 × 100 GB = 200 GB per worker; 1.6e12 bit / 200 Gb/s = 8 s, / 100 Gb/s = 16 s
    assert result.sync_bytes == Q_(200e9, "B")
    assert result.transfer_times["InfiniBand"].to("s").magnitude == pytest.approx(8.0, rel=1e-12)
    assert result.transfer_times["Ethernet"].to("s").magnitude == pytest.approx(16.0, rel=1e-12)
    assert SYNC.variant(workload=DLRM, precision="BF16").result.sync_bytes == Q_(200e9, "B")


def test_scale_out_gradient_bytes_are_the_stated_size():
    assert SCALE_OUT.variant(workload=DLRM, precision="bf16").result.gradient_bytes == Q_(100, "GB")
    # a model with a parameter count keeps P·w: GPT-2 XL's 1.5e9 parameters at 4 bytes
    assert SCALE_OUT.variant(precision="fp32").result.gradient_bytes == Q_(1.5e9 * 4, "B")


@pytest.mark.parametrize("scenario", [SYNC, SCALE_OUT], ids=["GradientSync", "DataParallelScaleOut"])
@pytest.mark.parametrize("precision", ["fp32", "fp8", "int8", "int4"])
def test_other_widths_are_refused_by_name(scenario, precision):
    with pytest.raises(MlsysymError, match="precision must be fp16 or bf16"):
        scenario.variant(workload=DLRM, precision=precision)


def test_a_record_without_size_or_count_is_refused():
    with pytest.raises(MlsysymError, match="stored_values is not set"):
        SCALE_OUT.variant(workload=Models.Recommendation.DLRM.__class__(name="sizeless"))
