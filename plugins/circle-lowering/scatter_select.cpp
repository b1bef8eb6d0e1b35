// select_scatter(x, src, dim, index) -> x with x.select(dim, index) replaced by src: the slices
// of x before and after `index` (SLICE) around src with `dim` restored (EXPAND_DIMS), joined
// by CONCATENATION along `dim`. Only the size of `dim` must be static.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

class SelectScatter final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *x = node.input(0);
    if (x->rank() == 0)
      return "select_scatter on a 0-D tensor";
    int64_t dim = normalizeDim(node.arg(2).asInt(), x->rank());
    const Dim &size = x->shape()[static_cast<std::size_t>(dim)];
    if (!node.arg(3).isInt())
      return "select_scatter with a symbolic index is not supported";
    if (size.isSymbolic())
      return "select_scatter along a symbolic dim is not supported";
    int64_t index = node.arg(3).asInt();
    if (index >= size.value() || index < -size.value())
      return "select_scatter index " + std::to_string(index) + " is out of range for size " +
             std::to_string(size.value());
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *x = node.input(0);
    const Value *src = node.input(1);
    const std::string base = node.name();
    const int64_t rank = x->rank();
    const int64_t dim = normalizeDim(node.arg(2).asInt(), rank);
    const auto d = static_cast<std::size_t>(dim);
    const int64_t size = x->shape()[d].value();
    int64_t index = node.arg(3).asInt();
    if (index < 0)
      index += size;

    Shape row_shape = x->shape();
    row_shape[d] = 1;
    int32_t row = emit.newTensor(x->dtype(), row_shape, base + "_row");
    emit.addOperator(circle::BuiltinOperator::EXPAND_DIMS,
                     {castedTensor(emit, src, x->dtype(), base + "_src"), emit.constInt32({toInt32(dim, "dim")}, base + "_axis")},
                     {row}, options(circle::ExpandDimsOptionsT{}));
    if (size == 1) {
      emitIdentity(emit, row, rank, emit.tensor(node.output()), base);
      return;
    }
    // SLICE of x along `dim` from `begin`, `count` long (-1 keeps the other dims whole).
    auto slice = [&](int64_t begin, int64_t count, const std::string &hint) {
      std::vector<int32_t> begins(static_cast<std::size_t>(rank), 0), sizes(static_cast<std::size_t>(rank), -1);
      begins[d] = toInt32(begin, "begin");
      sizes[d] = toInt32(count, "size");
      Shape shape = x->shape();
      shape[d] = count;
      int32_t out = emit.newTensor(x->dtype(), shape, hint);
      emit.addOperator(circle::BuiltinOperator::SLICE,
                       {emit.tensor(x), emit.constInt32(begins, hint + "_begin"), emit.constInt32(sizes, hint + "_size")},
                       {out}, options(circle::SliceOptionsT{}));
      return out;
    };
    std::vector<int32_t> pieces;
    if (index > 0)
      pieces.push_back(slice(0, index, base + "_before"));
    pieces.push_back(row);
    if (index + 1 < size)
      pieces.push_back(slice(index + 1, size - index - 1, base + "_after"));
    circle::ConcatenationOptionsT concat;
    concat.axis = toInt32(dim, "dim");
    emit.addOperator(circle::BuiltinOperator::CONCATENATION, pieces, {emit.tensor(node.output())},
                     options(std::move(concat)));
  }
};

} // namespace

void registerScatterSelect(Registrar &r) {
  registerFor(r, {ops::aten::select_scatter_default}, "SLICEs of the input around the src row, CONCATENATION",
              std::make_shared<SelectScatter>());
}

} // namespace tico::lowering
