"""Op patterns that real architectures rely on, in isolation (the real-model suite in
tests/models runs the architectures themselves): transformers' mask functions indexing a
mask with broadcast index tensors over a dynamic sequence, packed-sequence detection with
diff and cumsum, position ids from a cumsum of a padding mask, a router's topk, a BERT-style
gather of a token-type buffer at the first seq positions, pooling windows larger than
their input, a region under disabled autocast and a weight-standardised convolution. All of
them always run.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.export import Dim

from case_registry import e2e_case, randint, randn


@e2e_case
class MaskIndexBroadcastDynamic(nn.Module):
    """mask[batch_idx[:, None, None, None], kv_idx[None, None, None, :]] with a dynamic sequence
    (two index tensors that broadcast together over a symbolic dim)."""


    def forward(self, mask):
        batch = torch.arange(mask.shape[0])
        kv = torch.arange(mask.shape[1])
        picked = mask[batch[:, None, None, None], kv[None, None, None, :]]
        return picked.to(torch.float32) * 2

    def get_example_inputs(self):
        return (randint(2, 6, high=2, seed=1),), {}

    def get_second_inputs(self):
        return (randint(2, 4, high=2, seed=2),), {}

    def get_dynamic_shapes(self):
        return {"mask": {1: Dim("seq", min=2, max=16)}}


@e2e_case
class PackedSequenceDetection(nn.Module):
    """transformers' packed-sequence check: diff of position ids != 1, then a cumsum."""


    def forward(self, position_ids):
        first = position_ids[:, :1] - 1
        steps = torch.diff(position_ids, prepend=first, dim=-1)
        return (steps != 1).cumsum(-1)

    def get_example_inputs(self):
        return (torch.tensor([[0, 1, 2, 0, 1, 2, 3, 0]]),), {}

    def get_second_inputs(self):
        return (torch.tensor([[0, 1, 0, 1, 2]]),), {}

    def get_dynamic_shapes(self):
        return {"position_ids": {1: Dim("seq", min=2, max=16)}}


@e2e_case
class PositionIdsFromPaddingMask(nn.Module):
    """RoBERTa's position ids: cumsum of input_ids != pad, times the mask, plus the pad id."""

    def forward(self, input_ids):
        mask = input_ids.ne(1).int()
        incremental = torch.cumsum(mask, dim=1).type_as(mask) * mask
        return incremental.long() + 1

    def get_example_inputs(self):
        ids = randint(2, 7, high=9, low=2, seed=1)
        ids[0, 5:] = 1  # padding
        return (ids,), {}


@e2e_case
class RouterTopK(nn.Module):
    """A mixture-of-experts router: softmax over experts, top 2 weights and their expert ids,
    and the smallest of each row along dim 0 (largest=False on a non-last dim)."""


    def forward(self, logits):
        weights = torch.softmax(logits, dim=-1)
        top, experts = torch.topk(weights, 2, dim=-1)
        low, where = torch.topk(logits, 1, dim=0, largest=False)
        return top / top.sum(-1, keepdim=True), experts, low, where

    def get_example_inputs(self):
        return (randn(5, 4, seed=1),), {}


@e2e_case
class TokenTypeBufferGather(nn.Module):
    """BERT's token types: a [1, max] buffer expanded and gathered at the first seq positions,
    with a dynamic sequence."""


    def __init__(self):
        super().__init__()
        self.register_buffer("token_type_ids", torch.tensor([[0, 1, 1, 0, 1, 0, 0, 1]]), persistent=False)
        self.register_buffer("position_ids", torch.arange(8).expand((1, -1)), persistent=False)
        self.types = nn.Embedding(2, 3)

    def forward(self, input_ids):
        seq = input_ids.shape[1]
        positions = self.position_ids[:, :seq]
        buffered = self.token_type_ids.expand(1, -1)
        token_types = torch.gather(buffered, dim=1, index=positions)
        return self.types(token_types.expand(input_ids.shape[0], seq))

    def get_example_inputs(self):
        return (randint(2, 5, high=9, seed=1),), {}

    def get_second_inputs(self):
        return (randint(2, 3, high=9, seed=2),), {}

    def get_dynamic_shapes(self):
        return {"input_ids": {1: Dim("seq", min=2, max=8)}}


@e2e_case
class PoolerWindowLargerThanInput(nn.Module):
    """EfficientNet's pooler: AvgPool2d(kernel = hidden size, ceil_mode) over a 5x5 map (a
    global average after clipping), and a max pool whose ceil-mode window runs past the input."""

    def __init__(self):
        super().__init__()
        self.avg = nn.AvgPool2d(1280, ceil_mode=True)
        self.max = nn.MaxPool2d(2, stride=2, ceil_mode=True)

    def forward(self, x):
        return self.avg(x), self.max(x)

    def get_example_inputs(self):
        return (randn(1, 3, 5, 5, seed=1),), {}


@e2e_case
class AutocastDisabledRegion(nn.Module):
    """EfficientViT's linear attention: a region under torch.autocast(enabled=False), which
    torch.export keeps as a wrap_with_autocast higher-order op with a subgraph (the frontend
    inlines it). Its JSON names repeat the outer graph's; two results leave the region."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 6)

    def forward(self, x):
        y = torch.relu(x)
        with torch.autocast("cpu", enabled=False):
            z = self.proj(y.float()) * 2
            w = z + y
        return w - 1, z

    def get_example_inputs(self):
        return (randn(2, 3, 6, seed=1),), {}


@e2e_case
class WeightStandardisedConv(nn.Module):
    """timm's StdConv2d (BiT, NFNets, hybrid ViT stems): the weight normalised in forward with
    F.batch_norm(w, None, None, training=True), batch statistics and no running statistics."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 3, 3, 3, generator=torch.Generator().manual_seed(3)))
        self.gain = nn.Parameter(torch.rand(4, generator=torch.Generator().manual_seed(4)) + 0.5)

    def forward(self, x):
        w = torch.nn.functional.batch_norm(self.weight.reshape(1, 4, -1), None, None, weight=self.gain,
                                           training=True, momentum=0.0, eps=1e-6).reshape_as(self.weight)
        return torch.nn.functional.conv2d(x, w, padding=1)

    def get_example_inputs(self):
        return (randn(1, 3, 6, 6, seed=1),), {}
