"""The capture's cheap readings of a tensor, against the plain elementwise ones: finiteness
from one reduction (with the overflowing sum looked at element by element) and the
(elements, zeros, non-finite) counts of a gradient."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="the run-mode tests run real PyTorch")

from gradcli.capture.torch_calls import _count  # noqa: E402
from gradcli.capture.torch_capture import all_finite  # noqa: E402

INF, NAN = math.inf, math.nan
CASES = [
    [1.0, 2.0, 0.0],
    [3e38, 3e38, 3e38],  # finite elements whose float32 sum overflows
    [-3e38, -3e38],
    [1.0, INF],
    [INF, -INF],  # a sum of NaN
    [NAN, 0.0, 0.0],
    [0.0, 0.0],
]


@pytest.mark.parametrize("values", CASES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_all_finite_is_isfinite_all(values, dtype):
    t = torch.tensor(values, dtype=torch.float64).to(dtype)
    assert all_finite(t) == bool(torch.isfinite(t).all())


def test_all_finite_reads_complex_tensors():
    assert all_finite(torch.tensor([1 + 2j, 3j]))
    assert not all_finite(torch.tensor([complex(INF, 0), 1j]))


@pytest.mark.parametrize("values", CASES)
def test_counts_are_the_elementwise_counts(values):
    g = torch.tensor(values)
    n = g.numel()
    assert _count(g) == (n, int((g == 0).sum()), n - int(torch.isfinite(g).sum()))


def test_counts_of_empty_and_integer_tensors():
    assert _count(torch.zeros(0)) == (0, 0, 0)
    assert _count(torch.tensor([0, 3, 0])) == (3, 2, 0)
