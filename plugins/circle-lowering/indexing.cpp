// index.Tensor with one index tensor -> GATHER along that dim; with several adjacent index
// tensors that combine as an outer product (index j varies only along its own dim, as
// run_decompositions() writes interpolation: rows [Ho, 1], cols [Wo]) -> one GATHER per dim;
// with several that broadcast together otherwise (x[i, j] with i, j of one shape) -> the
// indexed dims merged into one by a RESHAPE and one GATHER at the linear offsets
// sum_j index_j * stride_j (int32 MUL/ADD; onert has no GATHER_ND);
// circle::gather_nd -> GATHER_ND. aten::gather reaches Circle through the
// convert-gather-to-gather-nd pass.
//
// PyTorch accepts negative indices where GATHER does not: a constant index tensor is
// normalised (a new constant), a computed one is passed through (its values must be >= 0).
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"
#include "tico/ops/circle_ops.h"

#include <cstring>
#include <limits>

namespace tico::lowering {
namespace {

std::string checkIndexDType(const Value *indices) {
  if (indices->dtype() != DType::Int32 && indices->dtype() != DType::Int64)
    return "indices must be int32 or int64; '" + indices->name() + "' is " +
           std::string(torchDTypeName(indices->dtype()));
  return {};
}

// The dims index.Tensor indexes: the first one and how many follow it.
struct Indexed {
  std::size_t first = 0, count = 0;
  bool outer_product = true; // false: the index tensors broadcast together (linear offsets)
};

// Throws when the index tensors are not adjacent.
Indexed indexedDims(const Node &node) {
  const auto &indices = node.arg(1).asValues();
  Indexed out;
  const IndexTensors tensors = adjacentIndexTensors(indices);
  out.first = tensors.first;
  out.count = tensors.tensors.size();
  if (out.count == 0)
    throw Error("index without an index tensor");
  if (out.count == 1)
    return out;
  // Index j (right-aligned to rank count) may differ from 1 only at position j, and the
  // broadcast of the indices has rank count: x[arange(1), argmax] has two [1] indices that
  // broadcast to [1], not to the [1, 1] of an outer product.
  std::size_t max_rank = 0;
  for (std::size_t j = 0; j < out.count; ++j)
    max_rank = std::max(max_rank, indices[out.first + j]->shape().size());
  if (max_rank != out.count) {
    out.outer_product = false;
    return out;
  }
  for (std::size_t j = 0; j < out.count; ++j) {
    const Shape &s = indices[out.first + j]->shape();
    if (s.size() > out.count) {
      out.outer_product = false;
      return out;
    }
    std::size_t offset = out.count - s.size();
    for (std::size_t p = 0; p < s.size(); ++p)
      if (p + offset != j && !(s[p].isStatic() && s[p].value() == 1)) {
        out.outer_product = false;
        return out;
      }
  }
  return out;
}

// The broadcast shape (right-aligned, as PyTorch broadcasts) of shapes that may hold symbolic
// dims: a dim of 1 takes the other, equal dims stay, a static size wins over a symbol (which
// must then be 1 or equal at run time), and of two different symbols the first names the
// result (the runtime checks them). nullopt when two static sizes disagree.
std::optional<Shape> broadcastSymbolic(const std::vector<Shape> &shapes) {
  Shape out;
  for (const Shape &s : shapes) {
    if (s.size() > out.size())
      out.insert(out.begin(), s.size() - out.size(), Dim(1));
    const std::size_t lead = out.size() - s.size();
    for (std::size_t i = 0; i < s.size(); ++i) {
      Dim &o = out[lead + i];
      const Dim &d = s[i];
      if (d == o || (d.isStatic() && d.value() == 1))
        continue;
      if (o.isStatic() && o.value() == 1) {
        o = d;
        continue;
      }
      if (o.isStatic() && d.isStatic())
        return std::nullopt;
      if (d.isStatic())
        o = d;
    }
  }
  return out;
}

// A copy of the constant `indices` with negative entries counted from the end of a dim of
// `size`; null when no entry is negative.
std::shared_ptr<const TensorData> normalisedIndices(const TensorData &indices, int64_t size) {
  std::vector<std::byte> bytes = indices.contiguousBytes();
  bool changed = false;
  auto fix = [&]<typename T>(T) {
    for (std::size_t i = 0; i < bytes.size(); i += sizeof(T)) {
      T v;
      std::memcpy(&v, bytes.data() + i, sizeof v);
      if (v < 0) {
        v = static_cast<T>(v + size);
        std::memcpy(bytes.data() + i, &v, sizeof v);
        changed = true;
      }
    }
  };
  if (indices.dtype == DType::Int32)
    fix(int32_t{});
  else
    fix(int64_t{});
  if (!changed)
    return nullptr;
  return std::make_shared<TensorData>(TensorData::fromBytes(indices.dtype, indices.sizes, std::move(bytes)));
}

class IndexTensor final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *self = node.input(0);
    Indexed dims = indexedDims(node);
    if (static_cast<int64_t>(dims.first + dims.count) > self->rank())
      return "more indices than dims";
    for (std::size_t j = 0; j < dims.count; ++j) {
      const Value *indices = node.arg(1).asValues()[dims.first + j];
      if (indices->dtype() == DType::Bool || indices->dtype() == DType::UInt8)
        return "boolean-mask indexing has a data-dependent result shape; it is not supported";
      if (auto r = checkIndexDType(indices); !r.empty())
        return r;
      if (dims.outer_product && dims.count > 1 && countSymbolic(indices->shape()) > 0)
        return "several index tensors of symbolic size that combine as an outer product are not supported";
    }
    if (!dims.outer_product) {
      Shape merged = mergedShape(self->shape(), dims);
      const Dim &m = merged[dims.first];
      if (m.isStatic() && m.value() > std::numeric_limits<int32_t>::max())
        return "the indexed dims hold more elements than int32 offsets address";
      if (!m.isStatic() && countSymbolic(merged) > 1)
        return "index tensors that broadcast together over symbolic dims need the other dims static";
      std::vector<Shape> shapes;
      for (std::size_t j = 0; j < dims.count; ++j)
        shapes.push_back(node.arg(1).asValues()[dims.first + j]->shape());
      if (!broadcastSymbolic(shapes))
        return "index tensors of shapes that do not broadcast";
      if (auto r = reshapeUnsupported(merged, nullptr, self); !r.empty())
        return r;
    }
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *self = node.input(0);
    Indexed dims = indexedDims(node);
    if (!dims.outer_product) {
      lowerLinear(node, dims, emit);
      return;
    }
    int32_t current = emit.tensor(self);
    Shape shape = self->shape();
    for (std::size_t j = 0; j < dims.count; ++j) {
      const Value *indices = node.arg(1).asValues()[dims.first + j];
      std::size_t dim = dims.first + j;
      int32_t index_t = indexTensor(emit, indices, shape[dim], dims.count > 1, node.name() + "_index" + std::to_string(j));
      circle::GatherOptionsT gather;
      gather.axis = toInt32(static_cast<int64_t>(dim), "dim");
      bool last = j + 1 == dims.count;
      int32_t out = -1;
      if (last) {
        out = emit.tensor(node.output());
      } else {
        shape[dim] = numElementsHint(indices->shape());
        out = emit.newTensor(self->dtype(), shape, node.name() + "_gathered" + std::to_string(j));
      }
      emit.addOperator(circle::BuiltinOperator::GATHER, {current, index_t}, {out}, options(std::move(gather)));
      current = out;
    }
  }

private:
  // self's shape with the indexed dims merged into one (symbolic when one of them is).
  static Shape mergedShape(const Shape &shape, const Indexed &dims) {
    Shape out(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(dims.first));
    int64_t merged = 1;
    std::string expr;
    for (std::size_t j = 0; j < dims.count; ++j) {
      const Dim &d = shape[dims.first + j];
      merged *= d.value();
      if (d.isSymbolic())
        expr += (expr.empty() ? "" : "*") + ("(" + d.expr() + ")");
    }
    for (std::size_t j = 0; j < dims.count && !expr.empty(); ++j)
      if (shape[dims.first + j].isStatic())
        expr += "*" + std::to_string(shape[dims.first + j].value());
    out.push_back(expr.empty() ? Dim(merged) : Dim::symbolic(expr, merged));
    out.insert(out.end(), shape.begin() + static_cast<std::ptrdiff_t>(dims.first + dims.count), shape.end());
    return out;
  }

  // Index tensors that broadcast together: GATHER of the merged dim at
  // sum_j index_j * stride_j, the row-major offset within the indexed dims. Strides over
  // symbolic dims are read from the input's shape at run time (SHAPE + GATHER); the offsets
  // broadcast by MUL/ADD, so symbolic index sizes need nothing more.
  static void lowerLinear(const Node &node, const Indexed &dims, CircleEmitter &emit) {
    const Value *self = node.input(0);
    const auto &indices = node.arg(1).asValues();
    const std::string base = node.name();
    int64_t stride = 1;      // the static part of the stride
    int32_t run_stride = -1; // the symbolic part, an int32 [1] tensor (-1: none)
    int32_t offsets = -1;
    Shape offsets_shape;
    for (std::size_t j = dims.count; j-- > 0;) {
      const Value *index = indices[dims.first + j];
      const std::string hint = base + "_index" + std::to_string(j);
      const Dim &size = self->shape()[dims.first + j];
      int32_t t = indexTensor(emit, index, size, false, hint);
      if (index->dtype() != DType::Int32) {
        int32_t cast = emit.newTensor(DType::Int32, index->shape(), hint + "_int32");
        emitCastInto(emit, t, index->dtype(), DType::Int32, cast);
        t = cast;
      }
      if (stride != 1) {
        int32_t scaled = emit.newTensor(DType::Int32, index->shape(), hint + "_scaled");
        emit.addOperator(circle::BuiltinOperator::MUL,
                         {t, scalarConstant(emit, DType::Int32, static_cast<double>(stride), hint + "_stride")},
                         {scaled}, options(circle::MulOptionsT{}));
        t = scaled;
      }
      if (run_stride >= 0) {
        int32_t scaled = emit.newTensor(DType::Int32, index->shape(), hint + "_scaled_by_size");
        emit.addOperator(circle::BuiltinOperator::MUL, {t, run_stride}, {scaled}, options(circle::MulOptionsT{}));
        t = scaled;
      }
      if (offsets < 0) {
        offsets = t;
        offsets_shape = index->shape();
      } else {
        offsets_shape = *broadcastSymbolic({offsets_shape, index->shape()});
        int32_t sum = emit.newTensor(DType::Int32, offsets_shape, hint + "_offsets");
        emit.addOperator(circle::BuiltinOperator::ADD, {t, offsets}, {sum}, options(circle::AddOptionsT{}));
        offsets = sum;
      }
      if (size.isStatic()) {
        stride *= size.value();
        continue;
      }
      VectorPiece piece;
      piece.kind = VectorPiece::Kind::InputDim;
      piece.value = static_cast<int64_t>(dims.first + j);
      piece.input = self;
      int32_t dim_size = emitIntVector(emit, {piece}, hint + "_size");
      if (run_stride < 0) {
        run_stride = dim_size;
      } else {
        int32_t product = emit.newTensor(DType::Int32, Shape{1}, hint + "_stride_product");
        emit.addOperator(circle::BuiltinOperator::MUL, {run_stride, dim_size}, {product}, options(circle::MulOptionsT{}));
        run_stride = product;
      }
    }
    Shape merged_shape = mergedShape(self->shape(), dims);
    int32_t merged = emit.newTensor(self->dtype(), merged_shape, base + "_merged");
    emitReshapeInto(emit, emit.tensor(self), merged_shape, nullptr, self, merged, base + "_merged");
    circle::GatherOptionsT gather;
    gather.axis = toInt32(static_cast<int64_t>(dims.first), "dim");
    emitOp(emit, circle::BuiltinOperator::GATHER, {merged, offsets}, node.output(), options(std::move(gather)));
  }

  // The index operand: negative constants normalised; flattened to 1-D for the outer product.
  static int32_t indexTensor(CircleEmitter &emit, const Value *indices, const Dim &size, bool flatten,
                             const std::string &hint) {
    std::shared_ptr<const TensorData> data = indices->isConstant() ? indices->constant() : nullptr;
    if (data && size.isStatic())
      if (auto fixed = normalisedIndices(*data, size.value()))
        data = fixed;
    int64_t n = numElementsHint(indices->shape());
    if (data && flatten) {
      auto flat = std::make_shared<TensorData>(TensorData::fromBytes(data->dtype, {n}, data->contiguousBytes()));
      return emit.constant(flat, hint);
    }
    int32_t t = data ? (data == indices->constant() ? emit.tensor(indices) : emit.constant(data, hint))
                     : emit.tensor(indices);
    if (!flatten || indices->rank() == 1)
      return t;
    int32_t flat = emit.newTensor(indices->dtype(), Shape{n}, hint + "_flat");
    emitReshapeInto(emit, t, Shape{n}, nullptr, nullptr, flat, hint + "_flat");
    return flat;
  }
};

class GatherNd final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *indices = node.input(1);
    if (indices->rank() < 1 || indices->shape().back().isSymbolic())
      return "GATHER_ND needs indices whose last dim is static";
    if (indices->shape().back().value() > node.input(0)->rank())
      return "GATHER_ND index tuples are longer than the params rank";
    return checkIndexDType(indices);
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    emitOp(emit, circle::BuiltinOperator::GATHER_ND, {emit.tensor(node.input(0)), emit.tensor(node.input(1))},
           node.output(), options(circle::GatherNdOptionsT{}));
  }
};

// aten::gather only names the pass that rewrites it.
class GatherNeedsPass final : public CheckedLowering {
public:
  std::string check(const Node &) const override {
    return "aten::gather is rewritten to circle::gather_nd (GATHER_ND) by the convert-gather-to-gather-nd pass "
           "(plugin circle-legalize); run it before lowering";
  }
  void lower(const Node &, CircleEmitter &) const override {}
};

} // namespace

void registerIndexing(Registrar &r) {
  registerFor(r, {ops::aten::index_Tensor, ops::aten::_unsafe_index_Tensor}, "GATHER along the one indexed dim",
              std::make_shared<IndexTensor>());
  registerFor(r, {ops::circle::gather_nd_default}, "GATHER_ND", std::make_shared<GatherNd>());
  registerFor(r, {ops::aten::gather_default}, "via convert-gather-to-gather-nd", std::make_shared<GatherNeedsPass>());
}

} // namespace tico::lowering
