"""Programs that write: in-place ops, out= variants, copies into buffers and user inputs.

A plain ``torch.export.export`` keeps these writes (``add_``, ``copy_`` into a slice of a
buffer, ``sub.out``); ``run_decompositions()`` functionalizes them. Both saved forms must
convert, and every output must be what eager PyTorch computes, including outputs read after a
write through a view. All of these always run (they are not thinned like the op families).
"""

from __future__ import annotations

import torch
from torch import nn

from case_registry import ExpectedFailure, e2e_case, randint, randn

# The plain export keeps the writes; the LibTorch evaluator has value semantics and runs such a
# graph only after the pipeline's functionalize stage (test_evaluator_pipeline checks that).
WRITES_BEFORE_FUNCTIONALIZE = (
    ExpectedFailure(
        "evaluator_frontend",
        "the evaluator cannot run an op that writes its arguments in place; run the functionalize pass first",
        variants=("export",),
    ),
)


@e2e_case
class WriteUserInput(nn.Module):
    """x += y on an input, then a read of x: aten::add_.Tensor on a user input."""

    expected_failures = WRITES_BEFORE_FUNCTIONALIZE

    def forward(self, x, y):
        x.add_(y)
        return x * 2

    def get_example_inputs(self):
        return (randn(3, 4, seed=1), randn(3, 4, seed=2)), {}


@e2e_case
class WriteThroughViews(nn.Module):
    """A view taken before the write sees it; a write through a transpose of x."""

    expected_failures = WRITES_BEFORE_FUNCTIONALIZE

    def forward(self, x, y):
        v = x.view(2, 8)
        x[:, 0] += y
        x.t()[1].mul_(3.0)
        return v * 1, x + 0

    def get_example_inputs(self):
        return (randn(4, 4, seed=1), randn(4, seed=2)), {}


@e2e_case
class KVCacheSliceUpdate(nn.Module):
    """self.cache[:, 2:4] = k, then a read of the whole cache (copy_ into a slice of a buffer)."""

    expected_failures = WRITES_BEFORE_FUNCTIONALIZE

    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(2, 8, 4))

    def forward(self, k):
        self.cache[:, 2:4] = k
        return self.cache.sum(1), self.cache[:, :4] * 1

    def get_example_inputs(self):
        return (randn(2, 2, 4, seed=1),), {}


@e2e_case
class KVCacheBufferIndexCopy(nn.Module):
    """index_copy_ of new keys at run-time positions into a cache buffer."""

    expected_failures = WRITES_BEFORE_FUNCTIONALIZE

    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.arange(32, dtype=torch.float32).reshape(1, 8, 4))

    def forward(self, k, positions):
        self.cache.index_copy_(1, positions, k)
        return self.cache * 1

    def get_example_inputs(self):
        return (randn(1, 2, 4, seed=1), torch.tensor([5, 2])), {}


@e2e_case
class SubOut(nn.Module):
    """torch.sub(a, b, out=c): aten::sub.out writes the user input c."""

    expected_failures = WRITES_BEFORE_FUNCTIONALIZE

    def forward(self, a, b, c):
        torch.sub(a, b, out=c)
        return c + 1

    def get_example_inputs(self):
        return (randn(3, 5, seed=1), randn(3, 5, seed=2), randn(3, 5, seed=3)), {}


@e2e_case
class CopyBroadcastIntoInput(nn.Module):
    """dst.copy_(src) with src broadcast along rows and cast from int64."""

    expected_failures = WRITES_BEFORE_FUNCTIONALIZE

    def forward(self, dst, src):
        dst.copy_(src)
        return dst * 0.5

    def get_example_inputs(self):
        return (randn(3, 4, seed=1), randint(1, 4, high=9, seed=2)), {}


@e2e_case
class ResidualInPlace(nn.Module):
    """ResNet's residual: out += identity; relu_(out) (add_ and relu_ on intermediates)."""

    expected_failures = WRITES_BEFORE_FUNCTIONALIZE

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        self.drop = nn.Dropout(0.1, inplace=True)

    def forward(self, x):
        out = self.conv(x)
        out += x
        out.relu_()
        return self.drop(out)

    def get_example_inputs(self):
        return (randn(1, 4, 6, 6, seed=1),), {}


@e2e_case
class MaskedFillInPlace(nn.Module):
    """scores.masked_fill_(mask, -inf) before a softmax (attention masking written in place)."""

    expected_failures = WRITES_BEFORE_FUNCTIONALIZE

    def forward(self, scores, mask):
        scores = scores * 1.0
        scores.masked_fill_(mask, float("-inf"))
        return torch.softmax(scores, dim=-1)

    def get_example_inputs(self):
        mask = torch.zeros(2, 4, 4, dtype=torch.bool)
        mask[:, :, 3] = True
        return (randn(2, 4, 4, seed=1), mask), {}


@e2e_case
class DeviceAndLayoutNoOps(nn.Module):
    """to(device), same-dtype to(), and a channels_last clone: no-ops on the target."""

    def forward(self, x):
        y = x.to("cpu").to(torch.float32)
        z = y.contiguous(memory_format=torch.channels_last)
        return z.clone(memory_format=torch.contiguous_format) + 1

    def get_example_inputs(self):
        return (randn(1, 3, 4, 4, seed=1),), {}


@e2e_case
class ReturnedLinearAlsoActivated(nn.Module):
    """A returned FULLY_CONNECTED result that a RELU also reads (the RELU's own result is not
    returned, it feeds an ADD).

    onert 0.2 fuses the RELU into the FULLY_CONNECTED and the first output then holds the
    activated values; the default pipeline's portability stage gives the output its own copy.
    (test_e2e.py also checks that onert gets it wrong without that stage.)
    """

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 5)

    def forward(self, x):
        y = self.fc(x)
        return y, torch.relu(y) + 1

    def get_example_inputs(self):
        return (randn(3, 6, seed=1),), {}
