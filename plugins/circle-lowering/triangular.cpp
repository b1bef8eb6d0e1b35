// triu / tril -> SELECT_V2(keep, x, 0) over the last two dims, where keep is
// (col - row >= diagonal) for triu and (col - row <= diagonal) for tril.
//
// With static matrix dims the condition is a constant bool [R, C]; with symbolic ones (the
// causal mask of a model with a dynamic sequence length) it is computed at runtime from the
// row and column indices — value-free iotas over the input's own dims (static_shapes.cpp), so
// the mask's shape stays inferable — rows [R, 1] and cols [C] broadcast in the comparison.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

class Triangular final : public CheckedLowering {
public:
  explicit Triangular(bool upper) : upper_(upper) {}

  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->rank() < 2)
      return "triu/tril need at least 2 dims";
    if (!isNumericDType(in->dtype()))
      return "triu/tril of " + std::string(torchDTypeName(in->dtype())) + " tensors is not supported";
    if (!node.arg(1).isInt())
      return "a symbolic diagonal is not supported";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const std::string base = node.name();
    int64_t diagonal = node.arg(1).asInt();
    const Dim &rows = in->shape()[in->shape().size() - 2];
    const Dim &cols = in->shape().back();
    int32_t keep = -1;
    if (rows.isStatic() && cols.isStatic()) {
      std::vector<uint8_t> mask(static_cast<std::size_t>(rows.value() * cols.value()));
      for (int64_t r = 0; r < rows.value(); ++r)
        for (int64_t c = 0; c < cols.value(); ++c)
          mask[static_cast<std::size_t>(r * cols.value() + c)] = keeps(r, c, diagonal) ? 1 : 0;
      keep = emit.constant(std::make_shared<TensorData>(
                               TensorData::fromVector<uint8_t>(DType::Bool, {rows.value(), cols.value()}, mask)),
                           base + "_keep");
    } else {
      const Graph &graph = *node.graph();
      int32_t row_ids = emitIotaOfDim(emit, in, in->rank() - 2, DType::Int32, upperBound(graph, rows), base + "_rows");
      int32_t row_column = emit.newTensor(DType::Int32, Shape{rows, 1}, base + "_row_column");
      emitReshapeInto(emit, row_ids, Shape{rows, 1}, nullptr, nullptr, row_column, base + "_row_column");
      int32_t col_ids = emitIotaOfDim(emit, in, in->rank() - 1, DType::Int32, upperBound(graph, cols), base + "_cols");
      // col - row compared with the diagonal.
      int32_t offset = emit.newTensor(DType::Int32, Shape{rows, cols}, base + "_offset");
      emit.addOperator(circle::BuiltinOperator::SUB, {col_ids, row_column}, {offset}, options(circle::SubOptionsT{}));
      keep = emit.newTensor(DType::Bool, Shape{rows, cols}, base + "_keep");
      int32_t d = scalarConstant(emit, DType::Int32, static_cast<double>(diagonal), base + "_diagonal");
      if (upper_)
        emit.addOperator(circle::BuiltinOperator::GREATER_EQUAL, {offset, d}, {keep},
                         options(circle::GreaterEqualOptionsT{}));
      else
        emit.addOperator(circle::BuiltinOperator::LESS_EQUAL, {offset, d}, {keep}, options(circle::LessEqualOptionsT{}));
    }
    int32_t zero = scalarConstant(emit, in->dtype(), 0.0, base + "_zero");
    emitOp(emit, circle::BuiltinOperator::SELECT_V2, {keep, emit.tensor(in), zero}, node.output(),
           options(circle::SelectV2OptionsT{}));
  }

private:
  bool keeps(int64_t row, int64_t col, int64_t diagonal) const {
    return upper_ ? col - row >= diagonal : col - row <= diagonal;
  }

  bool upper_;
};

} // namespace

void registerTriangular(Registrar &r) {
  registerFor(r, {ops::aten::triu_default}, "SELECT_V2 with col - row >= diagonal (constant or RANGE-computed)",
              std::make_shared<Triangular>(true));
  registerFor(r, {ops::aten::tril_default}, "SELECT_V2 with col - row <= diagonal (constant or RANGE-computed)",
              std::make_shared<Triangular>(false));
}

} // namespace tico::lowering
