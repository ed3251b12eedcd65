"""The generated JavaScript evaluators (generated/js/*.mjs) against the Python ones, in Node.js.

One Node process runs every case (each registry instance and random valid variants of every
scenario class), read as one JSON batch on stdin; the outputs must equal the Python
evaluator's (floats to relative 1e-12, integers exactly), and an integer beyond 2^53 - 1 must
make the JavaScript refuse (RangeError) rather than round. Unit-level checks of the helpers
(Python's floor division for floats, ⌈log₂⌉, the integer guards) run in the same process.
"""

from __future__ import annotations

import math

import pytest
from javascript_support import JS, LIMIT, cases, floats_of, has_big_integer, mismatches, python_result, run_node

import generated
from symbolic.runtime.mathops import ceil_log2, floor_div

RANDOM_PER_CLASS = 20
BIG_PER_CLASS = 4  # variants with ints near 2^53, whose products pass it

HELPER_CASES = [("floor_div", [a, b]) for a, b in [(7, 2), (-7, 2), (7, -2), (1.0, 0.1), (263.9, 1.0), (-0.5, 3.0),
                                                    (1e300, 7.0), (2**52 + 1, 3), (0.3, 0.1), (5, 5), (0, 3)]]
HELPER_CASES += [("ceil_log2", [n]) for n in (1, 2, 3, 4, 5, 1024, 1025, 2**52, 2.5, 7.0001, 1.5)]
# Beyond 2^53 - 1 a double still holds some integers (2^54, 10^16) but not their odd neighbours.
HELPER_CASES += [("imul", [2**26, 2**27]), ("imul", [2**27, 2**27]), ("imul", [2**27 + 1, 2**27 + 1]),
                 ("iadd", [LIMIT, 1]), ("iadd", [LIMIT, 2]), ("iadd", [LIMIT - 1, 1]),
                 ("ipow", [10, 15]), ("ipow", [10, 16]), ("ipow", [3, 34]),
                 ("floor_div", [2**60, 2**7, True]), ("floor_div", [2**60, 3, True]), ("floor_div", [-(2**60), 2**7, True])]


@pytest.fixture(scope="module")
def batch():
    drawn = cases(RANDOM_PER_CLASS, big_per_class=BIG_PER_CLASS)
    requirement_cases = [(module, args) for module, _, args in drawn]
    answer = run_node({"cases": [[module, args, floats_of(args)] for module, _, args in drawn], "helpers": HELPER_CASES,
                       "requirements": requirement_cases})
    return drawn, answer


def test_every_scenario_has_a_module_and_cases(batch):
    drawn, _ = batch
    modules = {cls.__module__.rsplit(".", 1)[-1] for cls in generated.SCENARIO_CLASSES}
    assert modules == {path.stem for path in JS.glob("*.mjs")} - {"mathops"}
    counts = {module: sum(1 for m, _, _ in drawn if m == module) for module in modules}
    assert all(count >= RANDOM_PER_CLASS // 2 for count in counts.values()), counts


def test_javascript_equals_python_on_registry_and_random_inputs(batch):
    drawn, answer = batch
    failures, refused, big, exact_big, overflowed = [], 0, 0, 0, 0
    for (module, label, args), got in zip(drawn, answer["results"], strict=True):
        try:
            expected = python_result(module, args)
        except OverflowError:
            # Python's float ** raises where the value leaves double range (power_law's
            # resource_multiple ** -exponent at a draw near the domain's edge); JavaScript gives
            # Infinity. A known gap of the evaluators (both should refuse by name), not a mismatch.
            overflowed += 1
            continue
        near = "near 2^53" in label
        big += near
        if "error" in got:
            # Only where Python's exact integers go past what a double holds, and then by name.
            # Near 2^53 an intermediate int (6·N·D before a division) may be the one refused.
            if got["error"] == "RangeError" and "2^53" in got["message"] and (
                    has_big_integer([args, expected]) or (near and "an integer step is" in got["message"])):
                refused += not near
                continue
            failures.append(f"{label}: JavaScript raised {got['error']}: {got['message']}")
            continue
        exact_big += near and has_big_integer(expected)
        failures += [f"{label}: {m}" for m in mismatches(expected, got["ok"])]
    assert not failures, "\n".join(failures[:20])
    assert overflowed <= len(drawn) // 100, f"{overflowed} of {len(drawn)} cases overflowed in Python"
    assert refused <= len(drawn) // 20, f"{refused} of {len(drawn)} cases refused as beyond 2^53"
    # the draws near 2^53 reach every class, and some give exact ints past 2^53 (doubles that hold them)
    assert big >= len(generated.SCENARIO_CLASSES) and exact_big > 0, (big, exact_big)


def test_requirements_agree_with_the_python_class(batch):
    drawn, answer = batch
    for (module, label, args), verdicts in zip(drawn, answer["requirements"], strict=True):
        cls = next(c for c in generated.SCENARIO_CLASSES if c.__module__.endswith("." + module))
        expected = [None if any(args.get(n) is None for n in r.names) else bool(r.check(*(args[n] for n in r.names)))
                    for r in cls._requirements]
        for verdict, want in zip(verdicts, expected, strict=True):
            if isinstance(verdict, dict):  # refused: only an exact integer past what a double holds, by name
                assert verdict["error"] == "RangeError" and "2^53" in verdict["message"] and (
                    has_big_integer(args) or ("near 2^53" in label and "an integer step is" in verdict["message"])), (
                    label, verdict, want)
            else:
                assert verdict == want, (label, verdicts, expected)


def test_helpers_reproduce_python(batch):
    _, answer = batch
    for (name, args), got in zip(HELPER_CASES, answer["helpers"], strict=True):
        if name == "floor_div" and len(args) == 3:  # integers: exact, or refused when no double holds it
            exact = args[0] // args[1]
            assert got == {"ok": exact} if float(exact) == exact else "2^53" in got["message"], (args, got)
        elif name == "floor_div":
            assert got["ok"] == floor_div(*args), (args, got)
        elif name == "ceil_log2":
            assert got["ok"] == ceil_log2(*args), (args, got)
        else:
            exact = {"imul": math.prod, "iadd": sum, "ipow": lambda a: a[0] ** a[1]}[name](args)
            if float(exact) == exact:  # a double holds it: exact
                assert got == {"ok": exact}, (name, args, got)
            else:
                assert got["error"] == "RangeError" and "2^53" in got["message"], (name, args, got)


def test_missing_and_unknown_arguments_are_type_errors():
    answer = run_node({"cases": [["mlp_training_step", {}], ["mlp_training_step", {"batch_sise": 1}]],
                       "helpers": [], "requirements": []})
    first, second = answer["results"]
    assert first["error"] == "TypeError" and "missing required argument 'batch_size'" in first["message"]
    assert second["error"] == "TypeError" and "unexpected argument 'batch_sise'" in second["message"]


def test_a_count_beyond_two_to_the_53_is_refused_not_rounded():
    args = dict(next(a for m, _, a in cases(0) if m == "mlp_training_step"), batch_size=2**31 + 1, hidden_width=2**23 + 1)
    exact = python_result("mlp_training_step", args)["op_flops"]["relu"]
    assert exact == (2**31 + 1) * (2**23 + 1) > LIMIT  # Python's int is exact; a double would round it
    (got,) = run_node({"cases": [["mlp_training_step", args]], "helpers": [], "requirements": []})["results"]
    assert got["error"] == "RangeError" and "2^53" in got["message"], got
