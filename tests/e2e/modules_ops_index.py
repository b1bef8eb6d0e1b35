"""Op cases: indexing (gather, index, index_select, select, embedding, scatter and friends).

Index tensors are int64 runtime inputs unless the case is about a constant
index.  Scatter-like cases use distinct indices where a duplicate would make the
result depend on write order.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from case_registry import define_case, randint, randn


def _permutation(size: int, seed: int) -> torch.Tensor:
    return torch.randperm(size, generator=torch.Generator().manual_seed(seed))


# ---------------------------------------------------------------------------
# gather / take_along_dim.
# ---------------------------------------------------------------------------

define_case("GatherDim0", lambda self, x, i: torch.gather(x, 0, i), lambda: (randn(4, 5, seed=1), randint(3, 5, high=4, seed=2)))
define_case("GatherDim1", lambda self, x, i: torch.gather(x, 1, i), lambda: (randn(4, 5, seed=1), randint(4, 2, high=5, seed=2)))
define_case("GatherDim2Rank3", lambda self, x, i: torch.gather(x, 2, i), lambda: (randn(2, 3, 6, seed=1), randint(2, 3, 4, high=6, seed=2)))
define_case("GatherNegativeDim", lambda self, x, i: torch.gather(x, -1, i), lambda: (randn(2, 3, 6, seed=1), randint(2, 3, 1, high=6, seed=2)))
define_case(
    "GatherTopTokens",
    lambda self, logits: torch.gather(logits, -1, torch.argmax(logits, dim=-1, keepdim=True)),
    lambda: (randn(3, 10, seed=1),),
    doc="Index computed in the graph (argmax) then gathered.",
)
define_case("TakeAlongDim", lambda self, x, i: torch.take_along_dim(x, i, dim=1), lambda: (randn(3, 6, seed=1), randint(3, 2, high=6, seed=2)))

# ---------------------------------------------------------------------------
# index (advanced indexing) / index_select / select.
# ---------------------------------------------------------------------------

define_case("IndexTensorDim0", lambda self, x, i: x[i], lambda: (randn(6, 4, seed=1), randint(3, high=6, seed=2)))
define_case("IndexTensorDim1", lambda self, x, i: x[:, i], lambda: (randn(3, 6, 4, seed=1), randint(5, high=6, seed=2)))
define_case("IndexTensorDim2", lambda self, x, i: x[:, :, i], lambda: (randn(2, 3, 6, seed=1), randint(4, high=6, seed=2)))
define_case("IndexTensor2DIndex", lambda self, x, i: x[i], lambda: (randn(6, 4, seed=1), randint(2, 3, high=6, seed=2)), doc="A 2-D index tensor adds a dim.")
define_case(
    "IndexTwoTensors",
    lambda self, x, i, j: x[i, j],
    lambda: (randn(5, 6, seed=1), randint(4, high=5, seed=2), randint(4, high=6, seed=3)),
    doc="Two index tensors (the original supports a single one).",
)
define_case("IndexNegativeIndices", lambda self, x, i: x[i], lambda: (randn(6, 4, seed=1), randint(3, low=-6, high=0, seed=2)), doc="Negative indices count from the end.")
define_case("IndexConstantList", lambda self, x: x[:, [0, 2, 3]], lambda: (randn(3, 5, seed=1),))
define_case("IndexBoolMaskConstant", lambda self, x: x[:, torch.tensor([True, False, True, True, False])], lambda: (randn(3, 5, seed=1),), doc="A constant boolean mask (its true count is static).")


def _index_buffer(self):
    self.register_buffer("order", torch.tensor([3, 0, 2]))


define_case("IndexBufferIndex", lambda self, x: x[self.order], lambda: (randn(5, 4, seed=1),), setup=_index_buffer)
define_case("IndexSelectDim0", lambda self, x, i: torch.index_select(x, 0, i), lambda: (randn(6, 4, seed=1), randint(3, high=6, seed=2)))
define_case("IndexSelectDim1", lambda self, x, i: torch.index_select(x, 1, i), lambda: (randn(3, 6, 4, seed=1), randint(4, high=6, seed=2)))
define_case("IndexSelectConstIndex", lambda self, x: torch.index_select(x, 1, torch.tensor([4, 1])), lambda: (randn(3, 6, seed=1),))
define_case("IndexSelectConstScalarIndex", lambda self, x: torch.index_select(x, 0, torch.tensor([2])), lambda: (randn(4, 5, seed=1),))
define_case("IndexSelectInt32Index", lambda self, x, i: torch.index_select(x, 0, i), lambda: (randn(6, 4, seed=1), randint(3, high=6, seed=2, dtype=torch.int32)))
define_case("SelectDim0", lambda self, x: x[1], lambda: (randn(3, 4, 5, seed=1),))
define_case("SelectDim1", lambda self, x: x[:, 2], lambda: (randn(3, 4, 5, seed=1),))
define_case("SelectLastNegative", lambda self, x: x[..., -1], lambda: (randn(3, 4, 5, seed=1),))
define_case("SelectTwice", lambda self, x: torch.select(torch.select(x, 0, 1), 1, 0), lambda: (randn(3, 4, 5, seed=1),), doc="select of a select: down to rank 1.")
define_case("SelectToScalar", lambda self, x: x[1, 2] * 2.0, lambda: (randn(3, 4, seed=1),), doc="Selecting down to a 0-d tensor.")
define_case("SelectInt64", lambda self, x: x[:, 0], lambda: (randint(3, 4, high=9, seed=1),))

# ---------------------------------------------------------------------------
# embedding.
# ---------------------------------------------------------------------------


def _embedding(**kwargs):
    def setup(self):
        self.embedding = nn.Embedding(16, 6, **kwargs)

    return setup


define_case("EmbeddingRank1Ids", lambda self, ids: self.embedding(ids), lambda: (randint(5, high=16, seed=1),), setup=_embedding())
define_case("EmbeddingPaddingIdx", lambda self, ids: self.embedding(ids), lambda: (torch.tensor([[0, 3, 0, 7], [1, 0, 15, 2]]),), setup=_embedding(padding_idx=0))
define_case("EmbeddingInt32Ids", lambda self, ids: self.embedding(ids), lambda: (randint(2, 4, high=16, seed=1, dtype=torch.int32),), setup=_embedding())
define_case(
    "EmbeddingFunctional",
    lambda self, ids, table: F.embedding(ids, table),
    lambda: (randint(2, 3, high=10, seed=1), randn(10, 4, seed=2)),
    doc="The table is a runtime input.",
)
define_case(
    "EmbeddingScaled",
    lambda self, ids: self.embedding(ids) * 6**0.5,
    lambda: (randint(2, 5, high=16, seed=1),),
    setup=_embedding(),
)

# ---------------------------------------------------------------------------
# scatter / index_put / slice_scatter / select_scatter / index_copy.
# ---------------------------------------------------------------------------

define_case(
    "ScatterSrc",
    lambda self, x, i, src: torch.scatter(x, 1, i, src),
    lambda: (randn(3, 5, seed=1), torch.stack([_permutation(5, s)[:2] for s in range(3)]), randn(3, 2, seed=2)),
)
define_case(
    "ScatterValue",
    lambda self, x, i: torch.scatter(x, 0, i, 0.5),
    lambda: (randn(4, 3, seed=1), _permutation(4, 3)[:2].reshape(2, 1).expand(2, 3).contiguous()),
)
define_case(
    "ScatterAdd",
    lambda self, x, i, src: torch.scatter_add(x, 1, i, src),
    lambda: (randn(3, 5, seed=1), randint(3, 4, high=5, seed=2), randn(3, 4, seed=3)),
    doc="Duplicate indices accumulate (order-independent for addition, up to rounding).",
)
define_case(
    "IndexPut",
    lambda self, x, i, v: torch.index_put(x, (i,), v),
    lambda: (randn(6, 4, seed=1), _permutation(6, 2)[:3], randn(3, 4, seed=3)),
)
define_case(
    "IndexPutAccumulate",
    lambda self, x, i, v: torch.index_put(x, (i,), v, accumulate=True),
    lambda: (randn(6, 4, seed=1), randint(5, high=6, seed=2), randn(5, 4, seed=3)),
)
define_case(
    "IndexCopy",
    lambda self, x, i, src: torch.index_copy(x, 0, i, src),
    lambda: (randn(5, 3, seed=1), _permutation(5, 4)[:2], randn(2, 3, seed=2)),
)
define_case(
    "SliceScatterDim1",
    lambda self, x, src: torch.slice_scatter(x, src, dim=1, start=1, end=3),
    lambda: (randn(3, 5, seed=1), randn(3, 2, seed=2)),
)
define_case(
    "SliceScatterStep",
    lambda self, x, src: torch.slice_scatter(x, src, dim=0, start=0, end=6, step=2),
    lambda: (randn(6, 4, seed=1), randn(3, 4, seed=2)),
)
define_case(
    "SelectScatter",
    lambda self, x, src: torch.select_scatter(x, src, 1, 0),
    lambda: (randn(3, 4, 5, seed=1), randn(3, 5, seed=2)),
)


def _kv_cache_update(self, cache, new, position):
    # Writing a new token's key into a static cache at a runtime position.
    return cache.index_copy(2, position, new)


define_case(
    "KVCacheIndexCopy",
    _kv_cache_update,
    lambda: (torch.zeros(1, 2, 6, 4), randn(1, 2, 1, 4, seed=1), torch.tensor([3])),
)
