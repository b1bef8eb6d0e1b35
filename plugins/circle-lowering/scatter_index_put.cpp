// index_put (accumulate or not) and index_copy -> writes of whole rows (scatter_nd_emit.h).
//
// x[i0, ..., ik] = values (index tensors at adjacent dims d..d+k, slices elsewhere) writes the
// sub-tensors x[..., i0[b], ..., ik[b], ...] for every position b of the broadcast index
// shape B. Moving the indexed dims to the front (TRANSPOSE, when d > 0) and merging them makes
// x a [P, R] matrix whose row sum_j i_j[b] * stride_j receives row b of the values, brought to
// x[indices]'s shape (BROADCAST_TO), transposed the same way and reshaped to [numel(B), R].
// accumulate=True adds those rows, summing duplicates as PyTorch does; otherwise the written
// rows are replaced (with duplicates the last write wins, as in PyTorch's CPU kernels).
// Negative indices are wrapped with FLOOR_MOD (int64: onert 0.2 has no int32 FLOOR_MOD), as
// PyTorch counts them from the end. index_copy(x, dim, index, source) is
// index_put with `index` at `dim`. Static shapes only.
#include "lowerings.h"
#include "scatter_nd_emit.h"
#include "tico/ops/torch_ops.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace tico::lowering {
namespace {

std::vector<int64_t> staticSizes(const Shape &shape) {
  std::vector<int64_t> out;
  for (const Dim &d : shape)
    out.push_back(d.value());
  return out;
}

int64_t product(const std::vector<int64_t> &sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

// What an index_put / index_copy node writes.
struct Plan {
  std::size_t first = 0;              // first indexed dim
  std::vector<const Value *> indices; // one per indexed dim
  const Value *values = nullptr;
  bool accumulate = false;
};

std::string checkPlan(const Node &node, const Plan &plan) {
  const Value *x = node.input(0);
  if (countSymbolic(x->shape()) > 0 || countSymbolic(plan.values->shape()) > 0)
    return "index_put needs static shapes";
  if (x->dtype() == DType::Bool || !isNumericDType(x->dtype()))
    return "index_put on " + std::string(torchDTypeName(x->dtype())) + " tensors is not supported";
  if (plan.indices.empty())
    return "index_put without an index tensor";
  if (plan.first + plan.indices.size() > static_cast<std::size_t>(x->rank()))
    return "more indices than dims";
  std::vector<std::vector<int64_t>> shapes;
  for (const Value *index : plan.indices) {
    if (index->dtype() == DType::Bool || index->dtype() == DType::UInt8)
      return "boolean-mask index_put has a data-dependent number of writes; it is not supported";
    if (index->dtype() != DType::Int32 && index->dtype() != DType::Int64)
      return "index tensors must be int32 or int64";
    if (countSymbolic(index->shape()) > 0)
      return "index tensors of symbolic size are not supported";
    shapes.push_back(staticSizes(index->shape()));
  }
  auto b = broadcastSizes(shapes);
  if (!b)
    return "index tensors of shapes that do not broadcast";
  std::vector<int64_t> x_sizes = staticSizes(x->shape());
  if (product(x_sizes) > std::numeric_limits<int32_t>::max())
    return "the destination holds more elements than int32 offsets address";
  std::vector<int64_t> target(x_sizes.begin(), x_sizes.begin() + static_cast<std::ptrdiff_t>(plan.first));
  target.insert(target.end(), b->begin(), b->end());
  target.insert(target.end(), x_sizes.begin() + static_cast<std::ptrdiff_t>(plan.first + plan.indices.size()),
                x_sizes.end());
  auto joined = broadcastSizes({target, staticSizes(plan.values->shape())});
  if (!joined || *joined != target)
    return "the values do not broadcast to the indexed shape";
  return {};
}

void lowerPlan(const Node &node, const Plan &plan, CircleEmitter &emit) {
  const Value *x = node.input(0);
  const std::string base = node.name();
  const DType dtype = x->dtype();
  const std::vector<int64_t> x_sizes = staticSizes(x->shape());
  const auto rank = static_cast<int64_t>(x_sizes.size());
  const std::size_t k = plan.indices.size();
  std::vector<std::vector<int64_t>> shapes;
  for (const Value *index : plan.indices)
    shapes.push_back(staticSizes(index->shape()));
  const std::vector<int64_t> b = *broadcastSizes(shapes);
  if (product(b) == 0) { // nothing is written
    emitIdentity(emit, emit.tensor(x), rank, emit.tensor(node.output()), base);
    return;
  }

  // Row offsets: sum_j wrap(i_j) * stride_j over the indexed dims (row-major).
  int32_t offsets = -1;
  std::vector<int64_t> offsets_sizes;
  int64_t stride = 1;
  for (std::size_t j = k; j-- > 0;) {
    const Value *index = plan.indices[j];
    const std::string hint = base + "_index" + std::to_string(j);
    const int64_t size = x_sizes[plan.first + j];
    const Shape &shape = index->shape();
    int32_t wide = castedTensor(emit, index, DType::Int64, hint + "_int64");
    int32_t wrapped = emit.newTensor(DType::Int64, shape, hint + "_wrapped");
    emit.addOperator(circle::BuiltinOperator::FLOOR_MOD,
                     {wide, scalarConstant(emit, DType::Int64, static_cast<double>(size), hint + "_size")}, {wrapped},
                     options(circle::FloorModOptionsT{}));
    int32_t t = emit.newTensor(DType::Int32, shape, hint + "_int32");
    emitCastInto(emit, wrapped, DType::Int64, DType::Int32, t);
    if (stride != 1) {
      int32_t scaled = emit.newTensor(DType::Int32, shape, hint + "_scaled");
      emit.addOperator(circle::BuiltinOperator::MUL,
                       {t, scalarConstant(emit, DType::Int32, static_cast<double>(stride), hint + "_stride")},
                       {scaled}, options(circle::MulOptionsT{}));
      t = scaled;
    }
    if (offsets < 0) {
      offsets = t;
      offsets_sizes = shapes[j];
    } else {
      offsets_sizes = *broadcastSizes({offsets_sizes, shapes[j]});
      Shape sum_shape;
      for (int64_t s : offsets_sizes)
        sum_shape.push_back(s);
      int32_t sum = emit.newTensor(DType::Int32, sum_shape, hint + "_offsets");
      emit.addOperator(circle::BuiltinOperator::ADD, {t, offsets}, {sum}, options(circle::AddOptionsT{}));
      offsets = sum;
    }
    stride *= size;
  }
  const int64_t m = product(b);
  if (offsets_sizes != b) // the sum of all index terms has the broadcast shape
    throw Error("index_put: internal broadcast mismatch");

  // x with the indexed dims first, as [P, R].
  std::vector<int64_t> perm;
  for (std::size_t j = 0; j < k; ++j)
    perm.push_back(static_cast<int64_t>(plan.first + j));
  for (int64_t a = 0; a < rank; ++a)
    if (a < static_cast<int64_t>(plan.first) || a >= static_cast<int64_t>(plan.first + k))
      perm.push_back(a);
  // Moving the indexed dims to the front moves data only when a dim before them is larger than
  // 1; otherwise (a KV cache [1, heads=1, positions, dim] written along positions) the layout
  // already is [indexed..., rest] and reshapes suffice.
  const bool moved =
      std::any_of(x_sizes.begin(), x_sizes.begin() + static_cast<std::ptrdiff_t>(plan.first), [](int64_t s) { return s != 1; });
  int32_t front = emit.tensor(x);
  if (moved)
    front = emitTranspose(emit, front, dtype, x->shape(), perm, base + "_front");
  ScatterRows rows;
  rows.dtype = dtype;
  rows.rows = stride;
  rows.row_size = product(x_sizes) / stride;
  rows.count = m;
  rows.offsets = offsets;
  rows.data = reshapeStatic(emit, front, dtype, {rows.rows, rows.row_size}, base + "_rows");

  // The values as x[indices]'s shape, the B dims first, as [M, R].
  std::vector<int64_t> target(x_sizes.begin(), x_sizes.begin() + static_cast<std::ptrdiff_t>(plan.first));
  target.insert(target.end(), b.begin(), b.end());
  target.insert(target.end(), x_sizes.begin() + static_cast<std::ptrdiff_t>(plan.first + k), x_sizes.end());
  Shape target_shape;
  for (int64_t s : target)
    target_shape.push_back(s);
  int32_t values = castedTensor(emit, plan.values, dtype, base + "_values_cast");
  if (staticSizes(plan.values->shape()) != target) {
    int32_t expanded = emit.newTensor(dtype, target_shape, base + "_values_expanded");
    emit.addOperator(circle::BuiltinOperator::BROADCAST_TO, {values, int32Vector(emit, target, base + "_values_shape")},
                     {expanded}, options(circle::BroadcastToOptionsT{}));
    values = expanded;
  }
  if (moved) {
    std::vector<int64_t> value_perm;
    for (std::size_t j = 0; j < b.size(); ++j)
      value_perm.push_back(static_cast<int64_t>(plan.first + j));
    for (std::size_t a = 0; a < target.size(); ++a)
      if (a < plan.first || a >= plan.first + b.size())
        value_perm.push_back(static_cast<int64_t>(a));
    values = emitTranspose(emit, values, dtype, target_shape, value_perm, base + "_values_front");
  }
  int32_t updates = reshapeStatic(emit, values, dtype, {m, rows.row_size}, base + "_values_rows");

  int32_t result = plan.accumulate ? emitScatterAdd(emit, rows, updates, base)
                                   : emitScatterReplace(emit, rows, updates, false, base);
  if (!moved) {
    circle::ReshapeOptionsT reshape;
    reshape.new_shape = toInt32(x_sizes, "shape");
    emitOp(emit, circle::BuiltinOperator::RESHAPE, {result, int32Vector(emit, x_sizes, base + "_shape")},
           node.output(), options(std::move(reshape)));
    return;
  }
  Shape front_shape = permuteShape(x->shape(), perm);
  std::vector<int64_t> front_sizes = staticSizes(front_shape);
  int32_t unflat = reshapeStatic(emit, result, dtype, front_sizes, base + "_unflat");
  std::vector<int64_t> inverse(perm.size());
  for (std::size_t a = 0; a < perm.size(); ++a)
    inverse[static_cast<std::size_t>(perm[a])] = static_cast<int64_t>(a);
  emitTransposeInto(emit, unflat, inverse, emit.tensor(node.output()), base + "_back");
}

// index_put(x, indices, values, accumulate): leading None entries are full slices.
Plan indexPutPlan(const Node &node) {
  Plan plan;
  IndexTensors tensors = adjacentIndexTensors(node.arg(1).asValues());
  plan.first = tensors.first;
  plan.indices = std::move(tensors.tensors);
  plan.values = node.input(2);
  if (const Argument *acc = node.findArg("accumulate"))
    plan.accumulate = acc->asBool();
  return plan;
}

class IndexPut final : public CheckedLowering {
public:
  std::string check(const Node &node) const override { return checkPlan(node, indexPutPlan(node)); }
  void lower(const Node &node, CircleEmitter &emit) const override { lowerPlan(node, indexPutPlan(node), emit); }
};

// Whether `v` holds 0, 1, ..., n-1: arange(n) (arange.start(0, n), arange.start_step(0, n, 1)).
bool isIota(const Value *v, int64_t n) {
  const Node *p = v->producer();
  if (p == nullptr)
    return false;
  const auto intArg = [&](std::size_t i) -> std::optional<int64_t> {
    if (i >= p->numArgs() || !p->arg(i).isInt())
      return std::nullopt;
    return p->arg(i).asInt();
  };
  if (p->opId() == ops::aten::arange_default)
    return intArg(0) == n;
  if (p->opId() == ops::aten::arange_start)
    return intArg(0) == 0 && intArg(1) == n;
  if (p->opId() == ops::aten::arange_start_step)
    return intArg(0) == 0 && intArg(1) == n && intArg(2) == 1;
  return false;
}

// The runtime start of an index that counts up by one from it: index = start + arange(n), start
// one integer element. A KV-cache write at the current position has that form; null otherwise.
const Value *contiguousStart(const Value *index) {
  const Node *add = index->producer();
  if (add == nullptr || add->opId() != ops::aten::add_Tensor || index->rank() != 1 || countSymbolic(index->shape()) > 0)
    return nullptr;
  if (const Argument *alpha = add->findArg("alpha"); alpha && !(alpha->isNumber() && alpha->asDouble() == 1.0))
    return nullptr;
  const int64_t n = index->shape()[0].value();
  for (std::size_t side : {0u, 1u}) {
    const Argument &a = add->arg(side), &b = add->arg(1 - side);
    if (!a.isValue() || !b.isValue() || !isIota(a.asValue(), n))
      continue;
    const Value *start = b.asValue();
    const bool scalar = start->isTensor() && countSymbolic(start->shape()) == 0 && product(staticSizes(start->shape())) == 1;
    if (scalar && (start->dtype() == DType::Int32 || start->dtype() == DType::Int64))
      return start;
  }
  return nullptr;
}

// index_copy(x, dim, start + arange(n), source): the source block written at `start` along dim,
// as DYNAMIC_UPDATE_SLICE. Its start is clamped into [0, size - n] where index_copy would fail
// on an out-of-range index: a KV cache written past its end is an error of the caller either way.
void lowerBlockWrite(const Node &node, const Value *start, CircleEmitter &emit) {
  const Value *x = node.input(0);
  const std::string base = node.name();
  const auto rank = x->rank();
  const auto dim = normalizeDim(node.arg(1).asInt(), rank);
  int32_t update = castedTensor(emit, node.input(3), x->dtype(), base + "_update");
  int32_t first = castedTensor(emit, start, DType::Int32, base + "_start");
  if (start->rank() != 1)
    first = reshapeStatic(emit, first, DType::Int32, {1}, base + "_start_vector");
  std::vector<int64_t> unit(static_cast<std::size_t>(rank), 0);
  unit[static_cast<std::size_t>(dim)] = 1;
  int32_t starts = emit.newTensor(DType::Int32, Shape{Dim(rank)}, base + "_starts");
  emit.addOperator(circle::BuiltinOperator::MUL, {first, int32Vector(emit, unit, base + "_axis")}, {starts},
                   options(circle::MulOptionsT{}));
  emitOp(emit, circle::BuiltinOperator::DYNAMIC_UPDATE_SLICE, {emit.tensor(x), update, starts}, node.output(),
         options(circle::DynamicUpdateSliceOptionsT{}));
}

// A block write applies when the source is the destination with `dim` cut to the index's length.
bool isBlockWrite(const Node &node) {
  const Value *x = node.input(0), *source = node.input(3), *index = node.input(2);
  if (contiguousStart(index) == nullptr || countSymbolic(x->shape()) > 0 || countSymbolic(source->shape()) > 0 ||
      source->rank() != x->rank())
    return false;
  const auto dim = static_cast<std::size_t>(normalizeDim(node.arg(1).asInt(), x->rank()));
  for (std::size_t d = 0; d < static_cast<std::size_t>(x->rank()); ++d)
    if (source->shape()[d].value() != (d == dim ? index->shape()[0].value() : x->shape()[d].value()))
      return false;
  return isNumericDType(x->dtype());
}

// index_copy(x, dim, index, source) = index_put(x, [None] * dim + [index], source).
Plan indexCopyPlan(const Node &node) {
  Plan plan;
  plan.first = static_cast<std::size_t>(normalizeDim(node.arg(1).asInt(), node.input(0)->rank()));
  plan.indices.push_back(node.input(2));
  plan.values = node.input(3);
  return plan;
}

class IndexCopy final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (isBlockWrite(node))
      return "";
    if (node.input(2)->rank() > 1)
      return "index_copy needs a 0-D or 1-D index";
    Plan plan = indexCopyPlan(node);
    if (plan.values->rank() != node.input(0)->rank())
      return "index_copy source must have the destination's rank";
    return checkPlan(node, plan);
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    if (isBlockWrite(node))
      return lowerBlockWrite(node, contiguousStart(node.input(2)), emit);
    lowerPlan(node, indexCopyPlan(node), emit);
  }
};

} // namespace

void registerScatterIndexPut(Registrar &r) {
  registerFor(r, {ops::aten::index_put_default, ops::aten::_unsafe_index_put_default},
              "row writes: destination + matched rows when accumulating, else SELECT_V2 of the written rows",
              std::make_shared<IndexPut>());
  registerFor(r, {ops::aten::index_copy_default},
              "a block at start + arange(n): DYNAMIC_UPDATE_SLICE; other row writes along dim: SELECT_V2 of the "
              "written rows",
              std::make_shared<IndexCopy>());
}

} // namespace tico::lowering
