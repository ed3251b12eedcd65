"""The workloads the scenarios describe, run for real: the MLP step, Adam, roofline kernels, an epoch.

Every workload is written once against an op namespace: ``PLAIN`` is numpy itself (what is
timed), ``Tracer`` counts the same calls, with the values each one reads and writes, so the op
counts the predictions use are measured from the code that is timed, never typed in. The MLP
step's backward pass is written out by hand (numpy has no autograd); PyTorch's step and its
three Adam implementations are used when PyTorch is installed.
"""

from __future__ import annotations

import resource
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

BIG_RESULT = 32 << 20  # glibc's largest mmap threshold: a result at least this large is mapped fresh


class Plain:
    """numpy's functions, under the names the workloads call."""

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)


PLAIN = Plain()


class Counts(NamedTuple):
    """What one traced run issued: operations per phase, values moved and fresh results."""

    ops: dict[str, int]
    values: float          # elements read plus written by operations on arrays of ``size`` elements
    fresh: int             # results of ``size`` elements written into new arrays


class Tracer:
    """The op namespace that counts: each call is one operation of the current ``phase``.

    ``size``: the array size whose traffic is counted (an optimizer's parameter count); a read is
    every such array argument, a write every such result (``out=`` or returned)."""

    def __init__(self, size: int | None = None) -> None:
        self.phase = "forward"
        self.ops: dict[str, int] = {}
        self.size = size
        self.values = 0.0
        self.fresh = 0
        self.fresh_results: list[int] = []  # bytes of every result written into a new array
        self.calls: dict[str, list[str]] = {}  # the numpy functions called, per phase, in order

    def __getattr__(self, name: str) -> Callable[..., Any]:
        fn = getattr(np, name)

        def traced(*args: Any, **kwargs: Any) -> Any:
            self.ops[self.phase] = self.ops.get(self.phase, 0) + 1
            self.calls.setdefault(self.phase, []).append(name)
            result = fn(*args, **kwargs)
            fresh = isinstance(result, np.ndarray) and kwargs.get("out") is None
            if fresh:
                self.fresh_results.append(result.nbytes)
            if self.size is not None:
                self.values += sum(a.size for a in args if isinstance(a, np.ndarray) and a.size == self.size)
                if isinstance(result, np.ndarray) and result.size == self.size:
                    self.values += result.size
                    self.fresh += fresh
            return result

        return traced

    def counts(self) -> Counts:
        return Counts(dict(self.ops), self.values / self.size if self.size else 0.0, self.fresh)


# -- the MLP step: forward, softmax cross-entropy, backward written out ----------------------------
class MlpShape(NamedTuple):
    batch: int
    inputs: int
    hidden: int
    outputs: int


class NumpyMlp:
    """A one-hidden-layer MLP's training step (forward and backward, no optimizer) in float32."""

    def __init__(self, shape: MlpShape, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        b, i, h, o = shape
        self.shape = shape
        self.x = rng.standard_normal((b, i), dtype=np.float32)
        self.labels = rng.integers(0, o, size=b)
        self.onehot = np.eye(o, dtype=np.float32)[self.labels]
        self.w1 = (rng.standard_normal((i, h), dtype=np.float32) * 0.05)
        self.b1 = np.zeros(h, dtype=np.float32)
        self.w2 = (rng.standard_normal((h, o), dtype=np.float32) * 0.05)
        self.b2 = np.zeros(o, dtype=np.float32)

    def step(self, ops: Any = PLAIN) -> Any:
        """Loss and gradients of one batch; every array operation goes through ``ops``."""
        x, labels = self.x, self.labels
        z1 = ops.matmul(x, self.w1)
        ops.add(z1, self.b1, out=z1)
        a1 = ops.maximum(z1, 0)
        z2 = ops.matmul(a1, self.w2)
        ops.add(z2, self.b2, out=z2)
        shifted = ops.subtract(z2, ops.max(z2, axis=1, keepdims=True))
        exp = ops.exp(shifted)
        probs = ops.divide(exp, ops.sum(exp, axis=1, keepdims=True))
        loss = ops.mean(ops.negative(ops.log(ops.take_along_axis(probs, labels[:, None], axis=1))))
        if isinstance(ops, Tracer):
            ops.phase = "backward"
        dz2 = ops.subtract(probs, self.onehot)
        ops.divide(dz2, len(labels), out=dz2)
        dw2 = ops.matmul(a1.T, dz2)
        db2 = ops.sum(dz2, axis=0)
        da1 = ops.matmul(dz2, self.w2.T)
        dz1 = ops.multiply(da1, ops.greater(z1, 0))
        dw1 = ops.matmul(x.T, dz1)
        db1 = ops.sum(dz1, axis=0)
        return loss, (dw1, db1, dw2, db2)



def numpy_mlp_counts(model: NumpyMlp) -> tuple[dict[str, int], int, dict[str, list[str]]]:
    """Operations per phase of one traced step, the result bytes glibc maps fresh (the results past
    its largest mmap threshold; smaller ones reuse freed heap memory), and the functions called."""
    tracer = Tracer()
    model.step(tracer)
    return (tracer.counts().ops, sum(size for size in tracer.fresh_results if size >= BIG_RESULT),
            dict(tracer.calls))


def minor_faults_of(fn: Callable[[], object], calls: int = 2) -> float:
    """Minor page faults per call of ``fn`` (after one warm-up call)."""
    fn()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        fn()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


# -- Adam over one parameter tensor, two numpy implementations ---------------------------------------
class NumpyAdam:
    """Adam on one float32 tensor of ``size`` parameters; ``inplace``: every operation writes into the
    state or one scratch buffer (no fresh memory), else each one returns a new array (the naive way)."""

    def __init__(self, size: int, inplace: bool, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        rng = np.random.default_rng(1)
        self.w = rng.standard_normal(size, dtype=np.float32)
        self.g = rng.standard_normal(size, dtype=np.float32)
        self.m = np.zeros(size, dtype=np.float32)
        self.v = np.zeros(size, dtype=np.float32)
        self.tmp = np.empty(size, dtype=np.float32)
        self.inplace, self.lr, self.betas, self.eps, self.t = inplace, lr, betas, eps, 0

    def step(self, ops: Any = PLAIN) -> None:
        b1, b2 = self.betas
        self.t += 1
        step_size = self.lr / (1 - b1 ** self.t)
        root_correction = (1 - b2 ** self.t) ** 0.5
        if self.inplace:
            m, v, g, w, tmp = self.m, self.v, self.g, self.w, self.tmp
            ops.multiply(m, b1, out=m)
            ops.multiply(g, 1 - b1, out=tmp)
            ops.add(m, tmp, out=m)
            ops.multiply(v, b2, out=v)
            ops.multiply(g, g, out=tmp)
            ops.multiply(tmp, 1 - b2, out=tmp)
            ops.add(v, tmp, out=v)
            ops.sqrt(v, out=tmp)
            ops.divide(tmp, root_correction, out=tmp)
            ops.add(tmp, self.eps, out=tmp)
            ops.divide(m, tmp, out=tmp)
            ops.multiply(tmp, -step_size, out=tmp)
            ops.add(w, tmp, out=w)
            return
        self.m = ops.add(ops.multiply(self.m, b1), ops.multiply(self.g, 1 - b1))
        self.v = ops.add(ops.multiply(self.v, b2), ops.multiply(ops.multiply(self.g, self.g), 1 - b2))
        denom = ops.add(ops.divide(ops.sqrt(self.v), root_correction), self.eps)
        self.w = ops.subtract(self.w, ops.multiply(ops.divide(self.m, denom), step_size))


def adam_counts(size: int, inplace: bool) -> Counts:
    tracer = Tracer(size)
    NumpyAdam(size, inplace).step(tracer)
    return tracer.counts()


# -- a dense network's training loop for one epoch (numpy, SGD) -------------------------------------
class NumpyDense:
    """A ReLU network of ``widths`` trained with plain SGD: forward, backward and update written out."""

    def __init__(self, widths: tuple[int, ...], examples: int, batch: int, seed: int = 2) -> None:
        rng = np.random.default_rng(seed)
        self.weights = [rng.standard_normal((a, b), dtype=np.float32) * 0.05 for a, b in zip(widths, widths[1:], strict=False)]
        self.x = rng.standard_normal((examples, widths[0]), dtype=np.float32)
        self.onehot = np.eye(widths[-1], dtype=np.float32)[rng.integers(0, widths[-1], size=examples)]
        self.batch = batch

    def step(self, x: np.ndarray, targets: np.ndarray, ops: Any = PLAIN) -> None:
        activations = [x]
        for layer, w in enumerate(self.weights):
            z = ops.matmul(activations[-1], w)
            activations.append(ops.maximum(z, 0) if layer < len(self.weights) - 1 else z)
        logits = activations[-1]
        exp = ops.exp(ops.subtract(logits, ops.max(logits, axis=1, keepdims=True)))
        grad = ops.divide(exp, ops.sum(exp, axis=1, keepdims=True))
        ops.subtract(grad, targets, out=grad)
        for layer in range(len(self.weights) - 1, -1, -1):
            w = self.weights[layer]
            dw = ops.matmul(activations[layer].T, grad)
            if layer:
                grad = ops.multiply(ops.matmul(grad, w.T), ops.greater(activations[layer], 0))
            ops.subtract(w, ops.multiply(dw, 0.01 / len(targets)), out=w)

    def epoch(self) -> None:
        for start in range(0, len(self.x) - self.batch + 1, self.batch):
            self.step(self.x[start:start + self.batch], self.onehot[start:start + self.batch])

    def steps(self) -> int:
        return len(self.x) // self.batch


def dense_ops_per_step(model: NumpyDense) -> int:
    tracer = Tracer()
    model.step(model.x[:model.batch], model.onehot[:model.batch], tracer)
    return sum(tracer.counts().ops.values())


# -- PyTorch (the optional extra) --------------------------------------------------------------------
class TorchMlp:
    """The same MLP step in eager PyTorch on one CPU thread: forward, cross-entropy, backward()."""

    def __init__(self, shape: MlpShape, seed: int = 0) -> None:
        import torch

        torch.manual_seed(seed)
        b, i, h, o = shape
        self.torch = torch
        self.model = torch.nn.Sequential(torch.nn.Linear(i, h), torch.nn.ReLU(), torch.nn.Linear(h, o))
        self.x = torch.randn(b, i)
        self.labels = torch.randint(0, o, (b,))
        self.params = list(self.model.parameters())

    def step(self) -> Any:
        for param in self.params:
            param.grad = None
        loss = self.torch.nn.functional.cross_entropy(self.model(self.x), self.labels)
        loss.backward()
        return loss

    def counts(self) -> dict[str, int]:
        """Aten operations of the forward pass and of backward(), and the autograd graph's nodes."""
        forward, backward = _AtenCounter(), _AtenCounter()
        for param in self.params:
            param.grad = None
        with forward:
            loss = self.torch.nn.functional.cross_entropy(self.model(self.x), self.labels)
        nodes = graph_nodes(loss.grad_fn)
        with backward:
            loss.backward()
        return {"forward": forward.count, "backward": backward.count, "autograd_nodes": nodes}


def graph_nodes(root: Any) -> int:
    """Nodes of an autograd graph, AccumulateGrad leaves included."""
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_fn for next_fn, _ in node.next_functions)
    return len(seen)


class _AtenCounter:
    """Counts the aten operations run while it is active (a TorchDispatchMode)."""

    def __init__(self) -> None:
        from torch.utils._python_dispatch import TorchDispatchMode

        counter = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                result = func(*args, **(kwargs or {}))
                counter.count += 1
                counter.seen(func, args, result)
                return result

        self.count = 0
        self.mode = Mode()
        self.size: int | None = None
        self.values = 0
        self.fresh = 0

    def seen(self, func: Any, args: Any, result: Any) -> None:
        """Parameter-sized values read (every argument), written (arguments mutated in place, and
        new results) and the new results among them, from the operation's schema."""
        if self.size is None:
            return
        import torch

        def sized(value: Any) -> int:
            tensors = value if isinstance(value, (list, tuple)) else [value]
            return sum(1 for t in tensors if isinstance(t, torch.Tensor) and t.numel() == self.size)

        schema = func._schema
        for argument, value in zip(schema.arguments, args, strict=False):
            self.values += sized(value) * self.size
            if argument.alias_info is not None and argument.alias_info.is_write:
                self.values += sized(value) * self.size
        if not any(r.alias_info is not None for r in schema.returns):
            new = sized(result)
            self.values += new * self.size
            self.fresh += new

    def __enter__(self) -> _AtenCounter:
        self.mode.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.mode.__exit__(*exc)


class TorchAdam:
    """torch.optim.Adam over one parameter tensor of ``size``: ``fused``, ``foreach`` or ``for-loop``."""

    IMPLEMENTATIONS = ("fused", "foreach", "for-loop")

    def __init__(self, size: int, implementation: str) -> None:
        import torch

        self.param = torch.nn.Parameter(torch.randn(size))
        self.param.grad = torch.randn(size)
        flags = {"fused": {"fused": True}, "foreach": {"foreach": True}, "for-loop": {"foreach": False}}
        self.optimizer = torch.optim.Adam([self.param], lr=1e-3, **flags[implementation])  # type: ignore[arg-type]
        self.optimizer.step()  # creates the state, so a timed step is a steady one

    def step(self) -> None:
        self.optimizer.step()

    def counts(self) -> Counts:
        counter = _AtenCounter()
        counter.size = self.param.numel()
        with counter:
            self.optimizer.step()
        return Counts({"optimizer": counter.count}, counter.values / counter.size, counter.fresh)
