"""A dense (fully connected) network of any depth: parameters, FLOPs, traffic, memory."""

from symbolic.catalog import Constants, Datasets
from symbolic.model import (
    Dataset, Group, Input, Instance, Len, ListInput, MaxOver, Output, PerItem, Question, Scenario, Series, Sum, Sweep,
    Text, floor, flop, index, powers_of_two,
)

l = index("l", "layer")  # noqa: E741 - the layer index, as in the formulas


class DenseNetworkScenario(Scenario):
    """A dense network of `layer_widths` at `batch_size`: parameters, FLOPs, traffic, memory.

    Layer l (1 ≤ l ≤ L) maps w_(l−1) inputs to w_l outputs with a weight matrix and a bias
    vector. The forward pass costs two FLOPs per multiply-accumulate and two per output for
    the bias add and activation; training FLOPs count the matrix multiplies only (forward,
    weight gradients, and input gradients for every layer but the first). Traffic reads the
    weights once, the input once, writes the output once, and writes and reads back every
    hidden activation. Every value is `bytes_per_value` wide.
    """

    assumptions = ("Dense layers with biases; elementwise work of two FLOPs per output; "
                   "no cache reuse of activations between layers.")
    excludes = "Convolutions and attention, fused kernels, and measured utilization."
    references = (
        "Goodfellow, Bengio and Courville, Deep Learning, MIT Press 2016, ch. 6 (dense layers, back-propagation).",
        "Williams, Waterman and Patterson, Roofline, CACM 52(4), 2009 (arithmetic intensity).",
    )
    examples = """\
>>> from generated import Scenarios
>>> network = Scenarios.MnistDenseNetwork
>>> network.architecture
'784 → 128 → 64 → 10'
>>> network.result.parameters
109386
>>> Scenarios.MnistDenseNetworkLargeBatch.result.steps_per_epoch
58
"""

    main_outputs = ("result.parameters", "result.forward_flops", "result.intensity", "result.training_memory")
    chart = Sweep(
        instance="MnistDenseNetwork",
        input="batch_size",
        values=powers_of_two(12),
        series=(Series("result.intensity", "forward arithmetic intensity"),),
        xlabel="batch size",
        ylabel="intensity [flop/byte]",
        caption="Forward arithmetic intensity against batch size: the weights are read once per batch, "
        "so intensity grows with the batch until activation traffic dominates.")
    roofline = {"": "result.intensity"}
    questions = (Question(solve_for="batch_size", where="result.training_memory", equals="1 GB"),)

    layer_widths = ListInput(integer=True, positive=True, min_length=2, symbol="w",
                             doc="Widths w_0 … w_L: the input features, then each layer's outputs.")
    batch_size = Input(integer=True, positive=True, default=1, symbol="b", doc="Examples per step.")
    bytes_per_value = Input("byte", positive=True, symbol="v",
                            doc="Storage width of every weight, gradient and activation.")
    optimizer_bytes_per_parameter = Input("byte", nonnegative=True, symbol="q",
                                          doc="Optimizer state per parameter (Adam's two FP32 moments: 8 B).")
    dataset = Dataset(doc="Optional; only its training-example count is read, for `steps_per_epoch`.")

    w, b, v, q = layer_widths, batch_size, bytes_per_value, optimizer_bytes_per_parameter

    architecture = Text(layer_widths, " → ", doc="The widths, e.g. 784 → 128 → 64 → 10.")
    result = Group(layer_widths, batch_size, doc="Every derived quantity of the network at its batch.")
    layers = Output(Len(w) - 1, symbol="L", group=result, doc="Dense layers L (one fewer than the widths).")
    L = layers
    with result:
        weights_per_layer = PerItem(w[l - 1] * w[l], (l, 1, L), doc="Weights of each layer.")
        biases_per_layer = PerItem(w[l], (l, 1, L), doc="Biases of each layer.")
        params_per_layer = PerItem(weights_per_layer[l] + biases_per_layer[l], (l, 1, L),
                                   doc="Parameters of each layer.")
        weights = Output(Sum(weights_per_layer[l], (l, 1, L)), symbol="M", doc="Weights M: multiply-accumulates per example.")
        biases = Output(Sum(biases_per_layer[l], (l, 1, L)), doc="Biases.")
        parameters = Output(weights + biases, symbol="P", doc="Trainable parameters P.")
        macs_per_example = Output(weights, doc="Multiply-accumulates per example of the forward pass.")
        flops_per_example = Output(2 * macs_per_example * flop, "flop", doc="Matrix-multiply FLOPs per example.")
        first_layer_share = Output(weights_per_layer[1] / weights, doc="Share of the weights in the first layer.")
        matmul_flops_per_layer = PerItem(2 * b * weights_per_layer[l] * flop, (l, 1, L), "flop",
                                         doc="Forward matrix-multiply FLOPs of each layer.")
        elementwise_flops_per_layer = PerItem(2 * b * w[l] * flop, (l, 1, L), "flop",
                                              doc="Forward bias-add and activation FLOPs of each layer.")
        matmul_flops = Output(Sum(matmul_flops_per_layer[l], (l, 1, L)), "flop", doc="Forward matrix-multiply FLOPs.")
        elementwise_flops = Output(Sum(elementwise_flops_per_layer[l], (l, 1, L)), "flop",
                                   doc="Forward elementwise FLOPs.")
        forward_flops = Output(matmul_flops + elementwise_flops, "flop", doc="Forward FLOPs per batch.")
        forward_flops_per_example = Output(forward_flops / b, "flop", doc="Forward FLOPs per example.")
        matmul_share = Output(matmul_flops / forward_flops, doc="Share of the forward FLOPs in matrix multiplies.")
        elementwise_share = Output(elementwise_flops / forward_flops, doc="Share of the forward FLOPs in elementwise work.")
        parameter_bytes = Output(parameters * v, "byte", doc="Bytes of the parameters.")
        traffic_values = Output(b * (w[0] + 2 * Sum(w[l], (l, 1, L - 1)) + w[L]),
                                doc="Activation values moved by the forward pass: input read, output written, "
                                "each hidden activation written and read back.")
        traffic_bytes = Output(parameter_bytes + traffic_values * v, "byte",
                               doc="Forward DRAM traffic: the weights once plus the activation traffic.")
        intensity = Output(forward_flops / traffic_bytes, "flop/byte", doc="Forward FLOPs per byte of traffic.")
        weight_gradient_flops = Output(matmul_flops, "flop", doc="FLOPs of the weight gradients (one per forward multiply).")
        input_gradient_flops = Output(Sum(matmul_flops_per_layer[l], (l, 2, L)), "flop",
                                      doc="FLOPs of the input gradients, for every layer but the first.")
        training_step_flops = Output(matmul_flops + weight_gradient_flops + input_gradient_flops, "flop",
                                     doc="Matrix-multiply FLOPs of one training step (elementwise work excluded).")
        training_flops_ratio = Output(training_step_flops / matmul_flops, doc="Training over forward matrix-multiply FLOPs.")
        activation_values_per_layer = PerItem(b * w[l], (l, 0, L), doc="Activation values of the input and each layer.")
        activation_values_per_example = Output(Sum(w[l], (l, 0, L)), doc="Activation values per example.")
        saved_activation_values = Output(b * activation_values_per_example,
                                         doc="Activation values saved for the backward pass.")
        saved_activation_bytes = Output(saved_activation_values * v, "byte", doc="Bytes of the saved activations.")
        inference_activation_values = Output(b * MaxOver(w[l - 1] + w[l], (l, 1, L)),
                                             doc="Live activation values in inference: the largest adjacent pair.")
        inference_activation_bytes = Output(inference_activation_values * v, "byte",
                                            doc="Bytes of the live inference activations.")
        gradient_bytes = Output(parameters * v, "byte", doc="Bytes of the gradients.")
        optimizer_bytes = Output(parameters * q, "byte", doc="Bytes of the optimizer state.")
        training_memory = Output(parameter_bytes + saved_activation_bytes + gradient_bytes + optimizer_bytes, "byte",
                                 doc="Training memory: weights, saved activations, gradients and optimizer state.")
        inference_memory = Output(parameter_bytes + inference_activation_bytes, "byte",
                                  doc="Inference memory: weights and the live activations.")
        training_memory_ratio = Output(training_memory / inference_memory, doc="Training over inference memory.")
        steps_per_epoch = Output(floor(dataset.training_examples / b), if_missing="none",
                                 doc="Full batches per epoch; None without a dataset count.")


_mnist = Datasets.MNIST
_pixels = _mnist.image_width * _mnist.image_height * _mnist.image_channels
_hidden = (128, 64)

MnistDenseNetwork = Instance(
    DenseNetworkScenario,
    name="MNIST digit classifier, 784-128-64-10, batch 32, FP32, Adam",
    description="A 784-128-64-10 MLP on MNIST at batch 32 with FP32 values and Adam's two FP32 moments.",
    layer_widths=[_pixels, *_hidden, _mnist.num_classes],
    batch_size=32,
    bytes_per_value=Constants.ByteWidths.FP32,
    optimizer_bytes_per_parameter=Constants.ByteWidths.ADAM_MOMENTS,
    dataset=_mnist,
)

MnistDenseNetworkWiderHidden = MnistDenseNetwork.variant(
    name="MNIST digit classifier with both hidden widths doubled, 784-256-128-10",
    description="The MNIST classifier with both hidden layers twice as wide.",
    layer_widths=[_pixels, *(2 * width for width in _hidden), _mnist.num_classes],
)

MnistDenseNetworkDoubledInputSide = MnistDenseNetwork.variant(
    name="MNIST digit classifier on 56 x 56 inputs (the image side doubled)",
    description="The MNIST classifier on images upsampled to twice the side, 3136 input features.",
    layer_widths=[(2 * _mnist.image_width) * (2 * _mnist.image_height) * _mnist.image_channels, *_hidden,
                  _mnist.num_classes],
)

MnistDenseNetworkLargeBatch = MnistDenseNetwork.variant(
    name="MNIST digit classifier at batch 1,024",
    description="The MNIST classifier at batch 1024: more work per weight byte, fewer steps per epoch.",
    batch_size=1024,
)
