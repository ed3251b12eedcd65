"""Shared by the JavaScript and browser tests: valid evaluator arguments and an output comparison.

``cases`` gives, per scenario class, the evaluator arguments of every registry instance, of
random valid variants (drawn inside each input's declared domain, then built by the class, so
they are what Python's validation accepts) and of variants whose inputs are ints near 2^53; ``mismatches`` compares a JavaScript result with the
Python evaluator's, relative 1e-12 for floats and exactly for integers.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import generated
from generated import Hardware, MlsysymError, Scenarios
from symbolic.runtime.validation import ListSpec

JS = Path(__file__).resolve().parents[1] / "generated" / "js"
LIMIT = 2**53 - 1  # the largest integer every smaller one of which a double holds


def registry_instances() -> dict[type, list[Any]]:
    found: dict[type, list[Any]] = {}
    for key in Scenarios:
        scenario = getattr(Scenarios, key)
        found.setdefault(type(scenario), []).append(scenario)
    return found


def _number(rng: random.Random, spec: Any) -> float | int:
    low = 0.0 if spec.minimum is None else float(spec.minimum)
    high = min(1e7, float(spec.maximum)) if spec.maximum is not None else max(low, 1.0) * 10 ** rng.uniform(0, 6)
    if spec.integer:
        first = math.floor(low) + 1 if (spec.strict and low == math.floor(low)) else math.ceil(low)
        last = max(first, math.floor(high) - (1 if spec.strict_maximum and high == math.floor(high) else 0))
        return rng.randint(first, min(last, first + 10**rng.randint(0, 5)))
    value = low + (high - low) * rng.random()
    return value if value > low or not spec.strict else (low + high) / 2


def random_variant(rng: random.Random, base: Any) -> Any | None:
    """A variant of ``base`` with about half its numeric inputs (and maybe its hardware)
    redrawn inside their domains; None when the draw breaks a cross-input requirement."""
    cls = type(base)
    changes: dict[str, Any] = {}
    for spec in cls._specs:
        if rng.random() < 0.5:
            continue
        if spec.default is None and rng.random() < 0.3:
            changes[spec.name] = None  # an optional input left out
        elif isinstance(spec, ListSpec) and spec.keyed:
            keys = list(base._given[spec.aligned_to]) if spec.aligned_to else [f"k{i}" for i in range(rng.randint(
                max(1, spec.min_length), 4))]
            changes[spec.name] = {key: _number(rng, spec) for key in keys}
        elif isinstance(spec, ListSpec):
            changes[spec.name] = [_number(rng, spec) for _ in range(rng.randint(max(1, spec.min_length), 5))]
        else:
            changes[spec.name] = _number(rng, spec)
    for node in cls._nodes:
        if rng.random() < 0.3:
            changes[node.name] = rng.choice(NODES)
    try:
        return base.variant(**changes)
    except MlsysymError:
        return None


NODES = [getattr(getattr(Hardware, tier), name) for tier in dir(Hardware) if not tier.startswith("_")
         for name in dir(getattr(Hardware, tier)) if not name.startswith("_")
         and type(getattr(getattr(Hardware, tier), name)).__name__ == "HardwareNode"]


def big_variant(rng: random.Random, base: Any) -> Any | None:
    """A variant of ``base`` with about half its numeric inputs (integer-declared or not) drawn as
    ints near 2^53 (10^12 up to 2^53 - 1, inside their domains), so that its products pass 2^53:
    Python keeps them exact ints, and JavaScript must give the same int or refuse."""
    cls = type(base)
    changes: dict[str, Any] = {}
    for spec in cls._specs:
        if isinstance(spec, ListSpec) or rng.random() < 0.5:
            continue
        low, high = 10**12, LIMIT
        if spec.maximum is not None:
            high = min(high, math.floor(float(spec.maximum)))
        if high > low:
            changes[spec.name] = rng.randint(low, high)
    try:
        return base.variant(**changes) if changes else None
    except MlsysymError:
        return None


def floats_of(args: dict[str, Any]) -> list[str]:
    """The arguments Python holds as floats (a list holding one counts): JavaScript is told, as
    it cannot see a float in a whole number such as the catalog's 7e9."""
    def is_float(value: Any) -> bool:
        if isinstance(value, dict):
            return any(is_float(v) for v in value.values())
        if isinstance(value, list):
            return any(is_float(v) for v in value)
        return isinstance(value, float)

    return sorted(name for name, value in args.items() if is_float(value))


def cases(per_class: int, seed: int = 17, big_per_class: int = 0) -> list[tuple[str, str, dict[str, Any]]]:
    """``(module, label, evaluator arguments)``: every registry instance, then ``per_class`` random
    valid variants of each class (fewer only when its draws keep breaking its requirements)."""
    rng = random.Random(seed)
    found: list[tuple[str, str, dict[str, Any]]] = []
    instances = registry_instances()
    for cls in generated.SCENARIO_CLASSES:
        module = cls.__module__.rsplit(".", 1)[-1]
        for scenario in instances.get(cls, []):
            found.append((module, scenario.name, dict(scenario._args)))
        drawn = 0
        for attempt in range(per_class * 4):
            if drawn == per_class:
                break
            variant = random_variant(rng, rng.choice(instances[cls]))
            if variant is not None:
                found.append((module, f"{cls.__name__} random {attempt}", dict(variant._args)))
                drawn += 1
        drawn = 0
        for attempt in range(big_per_class * 8):
            if drawn == big_per_class:
                break
            variant = big_variant(rng, rng.choice(instances[cls]))
            if variant is not None:
                found.append((module, f"{cls.__name__} near 2^53 {attempt}", dict(variant._args)))
                drawn += 1
    return found


def python_result(module: str, args: dict[str, Any]) -> Any:
    evaluator = getattr(generated, module) if hasattr(generated, module) else None
    if evaluator is None:
        import importlib

        evaluator = importlib.import_module(f"generated.{module}")
    return evaluator.evaluate(**args)


def mismatches(python: Any, javascript: Any, path: str = "") -> list[str]:
    """Where the two results differ: floats beyond relative 1e-12, integers at all, keys, None."""
    if isinstance(python, dict):
        if not isinstance(javascript, dict) or set(python) != set(javascript):
            return [f"{path}: keys {sorted(python)} vs {javascript!r}"]
        return [m for key in python for m in mismatches(python[key], javascript[key], f"{path}.{key}")]
    if isinstance(python, list):
        if not isinstance(javascript, list) or len(python) != len(javascript):
            return [f"{path}: {python!r} vs {javascript!r}"]
        return [m for i, (p, j) in enumerate(zip(python, javascript, strict=True)) for m in mismatches(p, j, f"{path}[{i}]")]
    if python is None or isinstance(python, (bool, str)):
        return [] if javascript == python and type(javascript) is type(python) else [f"{path}: {python!r} vs {javascript!r}"]
    if isinstance(javascript, bool) or not isinstance(javascript, (int, float)):
        return [f"{path}: {python!r} vs {javascript!r}"]
    if isinstance(python, int):  # exact: an int in Python is the same integer in JavaScript
        return [] if javascript == python else [f"{path}: integer {python} vs {javascript!r}"]
    if math.isclose(python, javascript, rel_tol=1e-12, abs_tol=1e-300):
        return []
    return [f"{path}: {python!r} vs {javascript!r}"]


def has_big_integer(tree: Any) -> bool:
    """True when an integer of the arguments or of the result exceeds 2^53 - 1 (JavaScript refuses those)."""
    if isinstance(tree, dict):
        return any(has_big_integer(value) for value in tree.values())
    if isinstance(tree, list):
        return any(has_big_integer(value) for value in tree)
    return isinstance(tree, int) and not isinstance(tree, bool) and abs(tree) > LIMIT


# Reads [[module, args, floats], ...] and [[helper, args], ...]; answers {"results": [...], "helpers": [...]}.
RUNNER = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
const [root] = process.argv.slice(1);
const batch = JSON.parse(readFileSync(0, "utf8"));
const modules = {};
const results = [];
for (const [module, args, floats] of batch.cases) {
  modules[module] ??= await import(pathToFileURL(join(root, module + ".mjs")).href);
  try {
    results.push({ok: modules[module].evaluate(args, floats)});
  } catch (error) {
    results.push({error: error.name, message: error.message});
  }
}
const ops = await import(pathToFileURL(join(root, "mathops.mjs")).href);
const helpers = batch.helpers.map(([name, args]) => {
  try { return {ok: ops[name](...args)}; } catch (error) { return {error: error.name, message: error.message}; }
});
const requirements = [];
for (const [module, values] of batch.requirements) {
  modules[module] ??= await import(pathToFileURL(join(root, module + ".mjs")).href);
  requirements.push(modules[module].requirements.map((r) => r.names.some((n) => values[n] == null) ? null
    : r.check(...r.names.map((n) => values[n]))));
}
// A whole double beyond 2^53 - 1 is written with all its digits: JSON's shortest form
// (14715537428900119000 for 14715537428900118528) would read back as another integer.
const exact = (key, value) => (typeof value === "number" && Number.isInteger(value)
  && Math.abs(value) > Number.MAX_SAFE_INTEGER ? {$big: BigInt(value).toString()} : value);
process.stdout.write(JSON.stringify({results, helpers, requirements}, exact));
"""


def run_node(payload: dict) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is missing: apt-get install nodejs (docsite/debian-packages.txt)")
    done = subprocess.run([node, "--input-type=module", "-e", RUNNER, str(JS)], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout, object_hook=lambda item: int(item["$big"]) if set(item) == {"$big"} else item)
