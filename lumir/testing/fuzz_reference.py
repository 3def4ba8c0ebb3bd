"""The fuzzer's reference: a program's exact value in float64, and how far a correct
compilation may be from it.

The evaluation reads only the generator's `Program` description and calls torch's
float64 ops; it shares no code with lumir's compiler, interpreter or executors, so a bug
there cannot hide by being in the reference as well.

Tolerance: a running error bound (forward error analysis carried along with the values).
For every value the reference computes the exact result `v` (float64 holds every
product of the f16/bf16/f32 inputs exactly and their sums to 2^-53) and a per-element
bound `e` on |computed - v| that any correct compilation of the program satisfies:

- an input is exact (`e = 0`), and so is a constant (`SCALES` are exact in every dtype);
- every op result is rounded at most once to its dtype, adding `u * (|v| + e) + eta`,
  with `u` the unit roundoff (2^-24 for f32, 2^-11 for f16, 2^-8 for bf16) and `eta`
  half the dtype's smallest subnormal; a fused cuBLASLt call rounds *fewer* times than
  the ops it replaces (once for matmul + bias + residual + activation, not once per op),
  so the unfused count is an upper bound for every fusion lumir may choose;
- errors propagate by the op's sensitivity: a sum adds them, a product by a constant
  scales them by |c|, a matmul adds `|A| e_B + e_A |B| + e_A e_B` plus the accumulation
  error `gamma_K (|A| + e_A)(|B| + e_B)` of K-term sums in f32 (cuBLASLt's compute type for
  every dtype here), relu is 1-Lipschitz, gelu (either form) at most `GELU_LIPSCHITZ`, and
  a gelu implemented in f32 adds a few f32 ulps of its input.

So "cast chains compound" holds by construction: each cast and each half-precision
intermediate adds its own rounding, relative to the magnitude of the value it rounds.
The bound is relative to the *terms* (|A||B|, |bias|, |residual|), not to the result,
so a result that cancels to nearly zero is judged fairly, and a 1x1 output is as strict
as a large one. A compiled value counts as matching when it is within
`SAFETY * e` of `v`; the margin covers second-order terms the bound drops. A miscompile
(a lost residual or bias, a wrong alpha, a transposed operand, an activation applied
before instead of after a residual, C read in the wrong dtype) changes results by about
the size of the terms themselves, far outside `e` (about 2^-8 of them in bf16, 2^-11 in
f16 and 1e-6 in f32); swapping exact for tanh gelu (at most 5e-4 apart) is caught in f32.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from lumir.dtypes import BY_NAME
from lumir.testing.fuzz_programs import DTYPES, Node, Program, TensorSpec

TORCH_DTYPES = {name: BY_NAME[name].torch_dtype() for name in DTYPES}
"""The torch dtype of each dtype the fuzzer draws (their rows of `lumir.dtypes`)."""
UNIT_ROUNDOFF = {name: torch.finfo(dtype).eps / 2 for name, dtype in TORCH_DTYPES.items()}
"""Half an ulp at 1: the largest relative error of rounding to nearest."""
SUBNORMAL_HALF_GAP = {
    name: torch.finfo(dtype).smallest_normal * torch.finfo(dtype).eps / 2
    for name, dtype in TORCH_DTYPES.items()
}
"""Half the smallest subnormal: the absolute error of rounding a value that underflows."""
GELU_LIPSCHITZ = 1.13
"""max |gelu'(x)|: 1.1289 for the erf form (at x = sqrt 2), 1.1290 for the tanh form."""
F32_KERNEL_ULPS = 16
"""Error of a gelu evaluated in f32 (erf/tanh and a few operations), in f32 ulps."""
SAFETY = 2.0


@dataclass(frozen=True)
class Bounded:
    """A value's exact float64 result and the bound on a correct computation's error."""

    value: torch.Tensor
    error: torch.Tensor


def random_inputs(program: Program, seed: int) -> list[torch.Tensor]:
    """Standard-normal inputs (times each argument's scale), rounded to their dtype.

    Values are drawn in float64 from one seeded generator, in argument order, so the
    same program and seed give the same inputs on every machine.
    """
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for argument in program.arguments:
        spec = argument.result
        normal = torch.randn(spec.shape, generator=generator, dtype=torch.float64)
        inputs.append((normal * argument.value).to(TORCH_DTYPES[spec.dtype]))
    return inputs


def evaluate(program: Program, inputs: list[torch.Tensor]) -> list[Bounded]:
    """Each returned value of `program` on `inputs`, with its error bound."""
    values: dict[str, Bounded] = {}
    for argument, tensor in zip(program.arguments, inputs, strict=True):
        exact = tensor.to(torch.float64)
        values[argument.name] = Bounded(exact, torch.zeros_like(exact))
    for node in program.body:
        values[node.name] = _evaluate_node(node, [values[name] for name in node.operands])
    return [values[name] for name in program.outputs]


def within_bound(result: torch.Tensor, expected: Bounded) -> torch.Tensor:
    """Elementwise: does `result` lie within SAFETY times the bound of the exact value?"""
    got = result.to(torch.float64)
    return (got - expected.value).abs() <= SAFETY * expected.error


def _rounded(value: torch.Tensor, error: torch.Tensor, spec: TensorSpec) -> Bounded:
    """`value` with `error` so far, plus one rounding to `spec`'s dtype."""
    rounding = UNIT_ROUNDOFF[spec.dtype] * (value.abs() + error) + SUBNORMAL_HALF_GAP[spec.dtype]
    return Bounded(value, error + rounding)


def _evaluate_node(node: Node, operands: list[Bounded]) -> Bounded:
    spec = node.result
    if node.op == "constant":
        exact = torch.tensor(node.value, dtype=torch.float64)
        return Bounded(exact, torch.zeros_like(exact))
    if node.op == "transpose":
        (x,) = operands
        return Bounded(x.value.permute(node.permutation), x.error.permute(node.permutation))
    if node.op == "reshape":
        (x,) = operands
        return Bounded(x.value.reshape(spec.shape), x.error.reshape(spec.shape))
    if node.op == "cast":
        (x,) = operands
        return _rounded(x.value, x.error, spec)
    if node.op == "relu":
        (x,) = operands
        return Bounded(x.value.clamp(min=0.0), x.error)
    if node.op == "gelu":
        return _gelu(operands[0], node.approximate, spec)
    if node.op == "add":
        return _add(operands[0], operands[1], spec)
    if node.op == "mul":
        return _mul(operands[0], operands[1], spec)
    if node.op == "matmul":
        return _matmul(operands[0], operands[1], spec)
    if node.op == "linear":
        x, w, *bias = operands
        weight_t = Bounded(w.value.t(), w.error.t())
        product = _matmul(x, weight_t, spec)
        return _add(product, bias[0], spec) if bias else product
    if node.op == "addmm":
        bias, lhs, rhs = operands
        return _add(_matmul(lhs, rhs, spec), bias, spec)
    raise ValueError(f"the fuzz reference has no rule for op '{node.op}'")


def _add(lhs: Bounded, rhs: Bounded, spec: TensorSpec) -> Bounded:
    return _rounded(lhs.value + rhs.value, lhs.error + rhs.error, spec)


def _mul(lhs: Bounded, rhs: Bounded, spec: TensorSpec) -> Bounded:
    error = lhs.value.abs() * rhs.error + lhs.error * rhs.value.abs() + lhs.error * rhs.error
    return _rounded(lhs.value * rhs.value, error, spec)


def _matmul(lhs: Bounded, rhs: Bounded, spec: TensorSpec) -> Bounded:
    k = lhs.value.shape[-1]
    gamma = k * UNIT_ROUNDOFF["f32"] / (1 - k * UNIT_ROUNDOFF["f32"])
    a, b = lhs.value.abs(), rhs.value.abs()
    propagated = a @ rhs.error + lhs.error @ b + lhs.error @ rhs.error
    accumulated = gamma * ((a + lhs.error) @ (b + rhs.error))
    return _rounded(lhs.value @ rhs.value, propagated + accumulated, spec)


def _gelu(x: Bounded, approximate: str, spec: TensorSpec) -> Bounded:
    v = x.value
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (v + 0.044715 * v**3)
        exact = 0.5 * v * (1.0 + torch.tanh(inner))
    else:
        exact = 0.5 * v * (1.0 + torch.erf(v / math.sqrt(2.0)))
    kernel = F32_KERNEL_ULPS * UNIT_ROUNDOFF["f32"] * (v.abs() + 1.0)
    return _rounded(exact, GELU_LIPSCHITZ * x.error + kernel, spec)
