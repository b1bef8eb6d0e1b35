// softmax / _softmax / _safe_softmax -> SOFTMAX (beta 1); log_softmax / _log_softmax ->
// LOG_SOFTMAX. Circle normalises over the last dim, so another dim is swapped to the end by
// TRANSPOSE and back. A dtype argument casts the input first.
//
// _safe_softmax returns 0 for rows that are entirely -inf where SOFTMAX gives NaN; the two
// agree everywhere else. decompose-composite-ops rewrites _safe_softmax with that masking
// (plugins/decompose/math_safe_softmax.cpp), so it only reaches this lowering in a pipeline
// without that stage.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

class Softmax final : public CheckedLowering {
public:
  explicit Softmax(bool log) : log_(log) {}

  std::string check(const Node &node) const override {
    const int64_t rank = node.input(0)->rank();
    const int64_t dim = normalizeDim(node.arg(1).asInt(), rank);
    if (!log_ && anyQuantized({node.input(0), node.output()})) {
      // The quantized kernel normalises the last dim; the TRANSPOSEs for other dims would need
      // parameters of their own (the quantization bundle quantizes last-dim softmax only).
      if (rank != 0 && dim != rank - 1)
        return "quantized SOFTMAX over dim " + std::to_string(dim) + " of a rank-" + std::to_string(rank) +
               " tensor (only the last dim is supported)";
      return quantizedSameType({node.input(0), node.output()}, "SOFTMAX");
    }
    return requireFloat(node.output(), log_ ? "LOG_SOFTMAX" : "SOFTMAX");
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    const std::string base = node.name();
    int64_t rank = in->rank();
    int64_t dim = normalizeDim(node.arg(1).asInt(), rank);
    int32_t x = castedTensor(emit, in, out->dtype(), base + "_input");
    bool last = rank == 0 || dim == rank - 1;
    auto perm = last ? std::vector<int64_t>{} : swapWithLast(dim, rank);
    if (!last)
      x = emitTranspose(emit, x, out->dtype(), in->shape(), perm, base + "_moved");
    int32_t result =
        last ? emit.tensor(out) : emit.newTensor(out->dtype(), permuteShape(out->shape(), perm), base + "_last");
    if (log_) {
      emit.addOperator(circle::BuiltinOperator::LOG_SOFTMAX, {x}, {result}, options(circle::LogSoftmaxOptionsT{}));
    } else {
      circle::SoftmaxOptionsT softmax;
      softmax.beta = 1.0f; // the schema default is 0, which would be a uniform distribution
      emit.addOperator(circle::BuiltinOperator::SOFTMAX, {x}, {result}, options(std::move(softmax)));
    }
    if (!last)
      emitTransposeInto(emit, result, perm, emit.tensor(out), base + "_restored");
  }

private:
  bool log_;
};

} // namespace

void registerSoftmax(Registrar &r) {
  registerFor(r, {ops::aten::softmax_int, ops::aten::_softmax_default, ops::aten::_safe_softmax_default},
              "SOFTMAX over the last dim (TRANSPOSE around it for other dims)", std::make_shared<Softmax>(false));
  registerFor(r, {ops::aten::log_softmax_int, ops::aten::_log_softmax_default}, "LOG_SOFTMAX over the last dim",
              std::make_shared<Softmax>(true));
}

} // namespace tico::lowering
