"""Model state of PPO against DPO alignment, and the rollout KV cache."""

from symbolic.catalog import Hardware, Models
from symbolic.model import (
    Group, Input, Instance, Output, Q, Question, Scenario, Series, Sweep, WorkloadInput, ceiling, powers_of_two,
    unit_constant,
)

byte = unit_constant("byte")


class AlignmentMemoryScenario(Scenario):
    """PPO and DPO alignment of `policy` with `critic`-sized reward and value models.

    PPO trains the policy and a value model with mixed-precision Adam (16 bytes per
    parameter each) and runs a frozen reference copy of the policy and a reward model in
    16-bit weights; DPO keeps only the policy and its reference. Rollouts hold a 16-bit KV
    cache of `rollout_sequences` sequences of `rollout_tokens` tokens on the policy.
    Tensor and pipeline parallelism split the models over `tp_size` × `pp_size` devices.
    """

    assumptions = ("Mixed-precision Adam at 16 bytes per trained parameter; frozen models in 16-bit weights; "
                   "the value and reward models have the critic's size; model parallelism splits evenly.")
    excludes = "Activations, rollout generation time, optimizer-state sharding (ZeRO) and data-parallel replicas."
    references = (
        "Ouyang et al., Training language models to follow instructions with human feedback, NeurIPS 2022 "
        "(PPO with policy, reference, reward and value models).",
        "Rafailov et al., Direct preference optimization, NeurIPS 2023 (policy and reference only).",
    )
    differs = {
        "result.kv_cache": "a sliding-window block of the policy keeps at most its window (the record's "
                           "`kv_cache_bytes`): 256 rollouts of 16,384 tokens on Mistral-7B v0.1 from its config hold "
                           "256 · 131,072 byte · 4,096 = 137.4 GB, not 549.8 GB; the reference's `get_kv_cache_size` "
                           "caches every token in every block. Policies without a window (every catalog entry) are "
                           "unchanged.",
        "device_memory": "a bare number is GB; the reference reads it as bits (80 gives 149,400,000,000 devices "
                         "instead of 19).",
        "min_devices_for_ppo": "the exact ceiling of ppo_total / device_memory; the reference takes the ceiling of a "
                               "floating-point ratio that can land one ulp above a whole number (7.416e12 B on 1 GB "
                               "devices gives 7417, not 7416).",
        "policy": "must be a transformer that states `hidden_dim` and `heads`: the reference silently takes 4096 and "
                  "32 for a missing width or head count, and fails with AttributeError on a CNN.",
    }
    examples = """\
>>> from generated import Scenarios
>>> s = Scenarios.Llama2_70B_PpoAlignment
>>> s.result.ppo_total
<Quantity(1.494e+12, 'byte')>
>>> s.result.min_devices_for_ppo
19
"""

    # A quantity whose own form is a record's KV cache with and without a window nests that cases in a
    # product (pdflatex sets it within the line); readers keep it by name.
    widest_equation = 68.0
    main_outputs = ("result.ppo_total", "result.dpo_total", "result.kv_cache")
    chart = Sweep(
        instance="Llama2_70B_PpoAlignment", input="rollout_sequences", values=powers_of_two(10),
        series=(Series("result.ppo_total", "PPO model state"), Series("result.dpo_total", "DPO model state"),
         Series("result.kv_cache", "rollout KV cache", dashed=True)),
        xlabel="rollout sequences", ylabel="bytes",
        caption="Model state of PPO and DPO for Llama-2-70B with a 13B critic, and the rollout KV cache at 1,024 tokens "
        "against the rollout batch.")
    questions = (Question(solve_for="rollout_sequences", where="result.kv_per_device", equals="10 GB"),)

    policy = WorkloadInput("TransformerWorkload", "SparseTransformerWorkload", requires=("hidden_dim", "heads"),
                           doc="The policy trained (a transformer; its KV cache is held during rollouts).")
    critic = WorkloadInput(requires=("parameters",), doc="The size of the reward and value models.")
    tp_size = Input(integer=True, positive=True, symbol="t", doc="Tensor-parallel degree.")
    pp_size = Input(integer=True, positive=True, symbol="q", doc="Pipeline-parallel degree.")
    dp_size = Input(integer=True, positive=True, default=1, symbol="d",
                    doc="Data-parallel degree: model copies, each on `model_parallel_devices` devices.")
    rollout_sequences = Input(integer=True, positive=True, symbol="B", doc="Sequences generated per rollout batch.")
    rollout_tokens = Input(integer=True, nonnegative=True, symbol="T", doc="Tokens per rollout sequence.")
    device_memory = Input("GB", positive=True, default=None, symbol="D",
                          doc="Memory of one device; optional, needed only by `min_devices_for_ppo`.")

    result = Group(doc="Model state of PPO and DPO, its split over the model-parallel devices, the KV cache.")

    with result:
        policy_state = Output(policy.parameters * 16 * byte, "byte", symbol=r"\pi",
                              doc="Policy under mixed-precision Adam, 16 bytes per parameter.")
        reference_weights = Output(policy.parameters * 2 * byte, "byte", symbol=r"\rho",
                                   doc="Frozen reference copy of the policy, 16-bit weights.")
        reward_weights = Output(critic.parameters * 2 * byte, "byte", symbol="r", doc="Frozen reward model, 16-bit weights.")
        value_state = Output(critic.parameters * 16 * byte, "byte", symbol="v",
                             doc="Value model under mixed-precision Adam, 16 bytes per parameter.")
        ppo_total = Output(policy_state + reference_weights + reward_weights + value_state, "byte",
                           doc="PPO's four models.")
        dpo_total = Output(policy_state + reference_weights, "byte", doc="DPO's two models.")
        dpo_reduction = Output((ppo_total - dpo_total) / ppo_total, doc="Share of PPO's model state DPO saves.")
        model_parallel_devices = Output(tp_size * pp_size, symbol="n", doc="Devices one model copy is split over.")
        total_devices = Output(model_parallel_devices * dp_size,
                               doc="Devices of the whole job: every data-parallel copy of the model on its own devices.")
        policy_per_device = Output(policy_state / model_parallel_devices, "byte", doc="Policy state per device.")
        reference_per_device = Output(reference_weights / model_parallel_devices, "byte", doc="Reference copy per device.")
        kv_cache = Output(policy.kv_cache_bytes(rollout_tokens, 2 * byte) * rollout_sequences, "byte",
                          doc="16-bit KV cache of the rollout batch on the policy; a sliding-window block keeps at "
                              "most its window.")
        kv_per_device = Output(kv_cache / model_parallel_devices, "byte", doc="KV cache per device.")
        min_devices_for_ppo = Output(ceiling(ppo_total / device_memory), if_missing="none",
                                     doc="Fewest devices whose memory holds PPO's model state (None without `device_memory`).")



Llama2_70B_PpoAlignment = Instance(
    AlignmentMemoryScenario,
    name="PPO and DPO alignment of a 70B policy",
    description=("Llama-2-70B aligned with 13B reward and value models (Llama-2-13B size), tensor parallelism 8, "
                 "pipeline parallelism 4, rollouts of 256 sequences of 1,024 tokens, on devices of 80 GB (the "
                 "H100's capacity figure, read in decimal GB as the reference does)."),
    policy=Models.Language.Llama2_70B,
    critic=Models.Language.Llama2_13B,
    tp_size=8,
    pp_size=4,
    dp_size=8,
    rollout_sequences=256,
    rollout_tokens=1024,
    device_memory=Q(Hardware.Cloud.H100.memory_capacity.to("GiB").magnitude, "GB"),
)
