"""Descriptive catalog fields (issue 29 §4): values no formula reads, typed and validated like every field,
reachable at runtime under the reference's names and shown on the catalog pages. Expected values are the
specs' own numbers, copied by hand (catalog.md §A.3/§A.4, networking.md §1.3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generated import CNNWorkload, Models, Q_, Systems, TransformerWorkload, Workload
from symbolic.catalog.load import CatalogError, field_value
from symbolic.catalog.workloads import Workload as WorkloadSchema
from symbolic.runtime.errors import ScenarioInputError

DOCS = Path(__file__).resolve().parents[2] / "generated" / "docs"


@pytest.mark.parametrize(("model", "year"), [
    (Models.Language.GPT3, 2020), (Models.Language.BERT_Large, 2018), (Models.Language.DeepSeek_V3, 2024),
    (Models.Language.OPT_13B, 2022), (Models.Vision.AlexNet, 2012), (Models.Vision.VGG16, 2014),
])
def test_release_years_of_the_catalog_spec(model, year):
    assert model.release_year == year and type(model.release_year) is int


def test_release_year_unset_where_the_spec_gives_none():
    assert Models.Language.Llama3_70B.release_year is None and Models.Vision.ResNet18.release_year is None


@pytest.mark.parametrize(("model", "label"), [
    (Models.Vision.ViT_Large, "Vision Transformer"), (Models.Tiny.AnomalyDetector, "MLP"),
    (Models.GenerativeVision.StableDiffusion_v1_5, "Diffusion/U-Net"),
    (Models.Embodied.OpenVLA_7B, "VLA (Prismatic / Llama-2-7B)"),
])
def test_architecture_labels_of_the_catalog_spec(model, label):
    assert model.architecture == label


def test_language_models_carry_no_architecture_label():
    # catalog.md §A.3 has no architecture column: the label is left unset, not invented
    assert Models.Language.GPT3.architecture is None


@pytest.mark.parametrize("year", [1949, 2101, 0, -2020])
def test_a_custom_release_year_outside_1950_to_2100_is_refused(year):
    with pytest.raises(ScenarioInputError, match=r"release_year.*an integer ≥ 1950 and ≤ 2100"):
        TransformerWorkload(name="Mine", parameters=Q_(8e9, "param"), layers=32, release_year=year)


def test_a_custom_release_year_inside_the_range_is_kept():
    assert CNNWorkload(name="Mine", parameters=1e6, inference_flops=1e9, release_year=1950).release_year == 1950
    assert Workload(name="Mine", parameters=1e6, release_year=2100).release_year == 2100
    with pytest.raises(ScenarioInputError, match="release_year"):
        Workload(name="Mine", parameters=1e6, release_year=2020.5)


def test_the_catalog_loader_refuses_an_out_of_range_year():
    field = WorkloadSchema.fields()["release_year"]
    assert field_value(field, 2012, "here") == 2012
    with pytest.raises(CatalogError, match="an integer ≥ 1950 and ≤ 2100"):
        field_value(field, 1900, "symbolic/catalog/workloads.toml: entry Vision.AlexNet, field 'release_year'")


@pytest.mark.parametrize(("value", "text"), [
    (Systems.SwitchFabric.HopLatency, "0.6 µs"),  # networking.md §1.3, RailVsLeafSpineHops
    (Systems.SwitchFabric.OpticsPluggable400G, "20 W"),  # networking.md §1.3, SpineOpticsTraining10K
    (Systems.SwitchFabric.AlphaNdr, "1.5 µs"),  # catalog.md §C.4
    (Systems.NetworkEnergy.NvlinkEnergyPerBit, "7.5 pJ/bit"),  # catalog.md §C.4
])
def test_switch_fabric_and_network_energy_entries(value, text):
    assert value == Q_(text)


def test_ndr_switch_ports_is_the_radix_the_fat_tree_entry_reads():
    # networking.md §1.3: stored 64.0, FatTreeNdrSwitch passes int(...) = 64
    assert int(Systems.SwitchFabric.NdrSwitchPorts) == 64


def test_the_pages_show_the_descriptive_fields():
    models = (DOCS / "models.md").read_text(encoding="utf-8")
    gpt3 = next(line for line in models.splitlines() if line.startswith("| `Models.Language.GPT3` | `release_year`"))
    assert "`release_year` 2020" in gpt3 and "`training_hardware_label` V100" in gpt3
    assert "| `Models.Vision.AlexNet` | `architecture` CNN; `release_year` 2012 |" in models
    assert "an integer ≥ 1950 and ≤ 2100" in models
    systems = (DOCS / "systems.md").read_text(encoding="utf-8")
    assert "| `Systems.SwitchFabric.HopLatency` | 0.6 µs | Latency of one switch hop" in systems
