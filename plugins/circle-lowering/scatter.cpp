// scatter (value / src), scatter_add, scatter_reduce with reduce='sum' -> row writes of the
// flattened destination (scatter_nd_emit.h: a one-hot match, SCATTER_ND for large operands).
//
// torch.scatter(x, dim, index, src) writes
//   out[p0, ..., index[p], ..., pN] = src[p]   for every position p of `index`,
// so element p lands at the linear offset index[p] * stride(dim) + sum over the other dims a
// of p_a * stride(a) of x (row-major). The lowering computes those int32 offsets (CAST, MUL by
// the dim's stride, ADD of a constant holding the other dims' part), views x as [numel, 1],
// writes src restricted to the index's extent (SLICE) and reshapes back. Addition sums
// duplicates as scatter_add does; with duplicate targets the replacing forms keep the last
// write, as PyTorch's CPU kernels do (its documentation leaves the winner unspecified).
// Static shapes only.
#include "lowerings.h"
#include "scatter_nd_emit.h"
#include "tico/ops/torch_ops.h"

#include <limits>

namespace tico::lowering {
namespace {

enum class ScatterKind { Value, Src, Add };

std::vector<int64_t> staticSizes(const Shape &shape) {
  std::vector<int64_t> out;
  for (const Dim &d : shape)
    out.push_back(d.value());
  return out;
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (std::size_t a = sizes.size(); a-- > 1;)
    strides[a - 1] = strides[a] * sizes[a];
  return strides;
}

int64_t product(const std::vector<int64_t> &sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

// int32 of the index's shape with size 1 at `dim`: the other dims' part of the offset.
std::shared_ptr<const TensorData> otherDimOffsets(std::vector<int64_t> shape, std::size_t dim,
                                                  const std::vector<int64_t> &strides) {
  shape[dim] = 1;
  std::vector<int32_t> values(static_cast<std::size_t>(product(shape)));
  std::vector<int64_t> position(shape.size(), 0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    int64_t offset = 0;
    for (std::size_t a = 0; a < shape.size(); ++a)
      offset += position[a] * strides[a];
    values[i] = static_cast<int32_t>(offset);
    for (std::size_t a = shape.size(); a-- > 0;) {
      if (++position[a] < shape[a])
        break;
      position[a] = 0;
    }
  }
  return std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, shape, values));
}

class Scatter final : public CheckedLowering {
public:
  explicit Scatter(ScatterKind kind) : kind_(kind) {}

  std::string check(const Node &node) const override {
    const Value *x = node.input(0);
    const Value *index = node.input(2);
    if (countSymbolic(x->shape()) > 0 || countSymbolic(index->shape()) > 0)
      return "scatter needs static shapes";
    if (index->dtype() != DType::Int32 && index->dtype() != DType::Int64)
      return "scatter indices must be int32 or int64";
    if (x->rank() != index->rank() || x->rank() == 0)
      return "scatter needs an index of the destination's rank";
    if (x->dtype() == DType::Bool || !isNumericDType(x->dtype()))
      return "scatter on " + std::string(torchDTypeName(x->dtype())) + " tensors is not supported";
    int64_t dim = normalizeDim(node.arg(1).asInt(), x->rank());
    if (product(staticSizes(x->shape())) > std::numeric_limits<int32_t>::max())
      return "the destination holds more elements than int32 offsets address";
    for (std::size_t a = 0; a < static_cast<std::size_t>(x->rank()); ++a)
      if (static_cast<int64_t>(a) != dim && index->shape()[a].value() > x->shape()[a].value())
        return "the index is larger than the destination along dim " + std::to_string(a);
    if (kind_ == ScatterKind::Value) {
      if (!numberOf(node.arg(3)))
        return "scatter value must be a number";
    } else {
      const Value *src = node.input(3);
      if (src->rank() != index->rank() || countSymbolic(src->shape()) > 0)
        return "scatter src must have the index's rank and static shape";
      for (std::size_t a = 0; a < static_cast<std::size_t>(src->rank()); ++a)
        if (src->shape()[a].value() < index->shape()[a].value())
          return "scatter src is smaller than the index along dim " + std::to_string(a);
    }
    if (const Argument *reduce = node.findArg("reduce"); reduce && !reduce->isNone()) {
      if (reduce->kind() != Argument::Kind::String || reduce->asString() != "sum")
        return "scatter_reduce supports reduce='sum' only";
      if (const Argument *self = node.findArg("include_self"); self && !self->asBool())
        return "scatter_reduce with include_self=False is not supported";
    }
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *x = node.input(0);
    const Value *index = node.input(2);
    const std::string base = node.name();
    const auto dim = static_cast<std::size_t>(normalizeDim(node.arg(1).asInt(), x->rank()));
    const std::vector<int64_t> x_sizes = staticSizes(x->shape());
    const std::vector<int64_t> index_sizes = staticSizes(index->shape());
    const std::vector<int64_t> strides = rowMajorStrides(x_sizes);
    const int64_t m = product(index_sizes);
    const DType dtype = x->dtype();
    if (m == 0) { // nothing is written
      emitIdentity(emit, emit.tensor(x), x->rank(), emit.tensor(node.output()), base);
      return;
    }

    int32_t offsets = castedTensor(emit, index, DType::Int32, base + "_index_int32");
    if (strides[dim] != 1) {
      int32_t scaled = emit.newTensor(DType::Int32, index->shape(), base + "_index_offsets");
      emit.addOperator(circle::BuiltinOperator::MUL,
                       {offsets, scalarConstant(emit, DType::Int32, static_cast<double>(strides[dim]), base + "_stride")},
                       {scaled}, options(circle::MulOptionsT{}));
      offsets = scaled;
    }
    if (m > index_sizes[dim]) { // other dims vary
      int32_t sum = emit.newTensor(DType::Int32, index->shape(), base + "_offsets");
      emit.addOperator(circle::BuiltinOperator::ADD,
                       {offsets, emit.constant(otherDimOffsets(index_sizes, dim, strides), base + "_other_offsets")},
                       {sum}, options(circle::AddOptionsT{}));
      offsets = sum;
    }

    ScatterRows rows;
    rows.dtype = dtype;
    rows.rows = product(x_sizes);
    rows.row_size = 1;
    rows.count = m;
    rows.offsets = offsets;
    rows.data = reshapeStatic(emit, emit.tensor(x), dtype, {rows.rows, 1}, base + "_flat");

    int32_t result = -1;
    if (kind_ == ScatterKind::Value) {
      result = emitScatterReplace(emit, rows, scalarConstant(emit, dtype, *numberOf(node.arg(3)), base + "_value"),
                                  true, base);
    } else {
      int32_t updates = sourceRows(emit, node.input(3), index_sizes, dtype, base);
      result = kind_ == ScatterKind::Add ? emitScatterAdd(emit, rows, updates, base)
                                         : emitScatterReplace(emit, rows, updates, false, base);
    }
    circle::ReshapeOptionsT reshape;
    reshape.new_shape = toInt32(x_sizes, "shape");
    emitOp(emit, circle::BuiltinOperator::RESHAPE, {result, int32Vector(emit, x_sizes, base + "_shape")},
           node.output(), options(std::move(reshape)));
  }

private:
  // src restricted to the index's extent, as [M, 1] of `dtype`.
  static int32_t sourceRows(CircleEmitter &emit, const Value *src, const std::vector<int64_t> &index_sizes,
                            DType dtype, const std::string &base) {
    int32_t t = castedTensor(emit, src, dtype, base + "_src_cast");
    if (staticSizes(src->shape()) != index_sizes) {
      Shape sliced_shape;
      for (int64_t s : index_sizes)
        sliced_shape.push_back(s);
      int32_t sliced = emit.newTensor(dtype, sliced_shape, base + "_src_slice");
      emit.addOperator(circle::BuiltinOperator::SLICE,
                       {t, int32Vector(emit, std::vector<int64_t>(index_sizes.size(), 0), base + "_src_begin"),
                        int32Vector(emit, index_sizes, base + "_src_size")},
                       {sliced}, options(circle::SliceOptionsT{}));
      t = sliced;
    }
    return reshapeStatic(emit, t, dtype, {product(index_sizes), 1}, base + "_src_rows");
  }

  ScatterKind kind_;
};

} // namespace

void registerScatter(Registrar &r) {
  registerFor(r, {ops::aten::scatter_value}, "one-hot row match of the flattened destination, SELECT_V2 with the value",
              std::make_shared<Scatter>(ScatterKind::Value));
  registerFor(r, {ops::aten::scatter_src}, "one-hot row match of the flattened destination, SELECT_V2 of the gathered src",
              std::make_shared<Scatter>(ScatterKind::Src));
  registerFor(r, {ops::aten::scatter_add_default, ops::aten::scatter_reduce_two},
              "destination + matched src summed (scatter_reduce: reduce='sum', include_self=True)",
              std::make_shared<Scatter>(ScatterKind::Add));
}

} // namespace tico::lowering
