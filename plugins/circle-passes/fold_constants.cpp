// fold-constants: evaluates operators whose inputs are all constants and replaces them by
// their results.
//
// The result becomes the payload of the operator's existing output tensor (same index, name
// and contract), so readers and signatures need no remapping; the operator is removed.
// Profiles: `basic` evaluates arithmetic (ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, NEG, ABS, SQRT,
// RSQRT, EXP, LOG), CAST, views (RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE), SHAPE of static
// tensors, GATHER, CONCATENATION, PACK, SLICE and FILL; `heavy` adds FULLY_CONNECTED,
// DEPTHWISE_CONV_2D, DEQUANTIZE and half-precision CAST. Results larger than `max_output_bytes`
// are not folded (they would grow the file), nor are subgraph outputs (the interface keeps
// its producer) or anything whose computed type/shape differs from what the model declares.
#include "fold_kernels.h"
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

#include "tico/support/error.h"

namespace tico::circle_passes {
namespace {

class FoldConstants final : public CirclePass {
public:
  explicit FoldConstants(const Options &options) : max_bytes_(options.getInt("max_output_bytes")) {
    const std::string &profile = options.getString("profile");
    if (profile == "basic")
      profile_ = FoldProfile::Basic;
    else if (profile == "heavy")
      profile_ = FoldProfile::Heavy;
    else
      throw Error("fold-constants: unknown profile '" + profile + "'; expected basic or heavy");
  }

  bool run(CircleModel &model, PassContext &) override {
    return sweepToFixedPoint(model, [&](SubgraphEditor &e, int i) { return fold(e, i); });
  }

private:
  bool fold(SubgraphEditor &e, int i) const {
    if (e.sideEffects(i) || e.op(i).outputs.empty())
      return false;
    for (int32_t t : e.op(i).outputs)
      if (!e.validTensor(t) || e.isGraphOutput(t) || isDynamic(e.tensor(t)) || e.tensor(t).is_variable)
        return false;
    auto values = evaluateOperator(e, i, profile_);
    if (!values || values->size() != e.op(i).outputs.size())
      return false;
    for (const ConstValue &v : *values)
      if (static_cast<int64_t>(v.bytes.size()) > max_bytes_)
        return false;
    const std::vector<int32_t> outputs = e.op(i).outputs;
    e.removeOp(i);
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      ConstValue &v = (*values)[k];
      e.tensor(outputs[k]).buffer = e.model().addBuffer(payloadFromBytes(v.type, v.shape, std::move(v.bytes)));
    }
    return true;
  }

  FoldProfile profile_ = FoldProfile::Basic;
  int64_t max_bytes_;
};

} // namespace

void registerFoldConstants(Registrar &r) {
  registerCirclePass<FoldConstants>(
      r, "fold-constants", "evaluate operators whose inputs are all constant and store their results",
      {{"profile", OptionType::String, std::string("basic"),
        "basic: arithmetic, CAST, views, SHAPE, GATHER, CONCATENATION, PACK, SLICE, FILL; heavy: also "
        "FULLY_CONNECTED, DEPTHWISE_CONV_2D, DEQUANTIZE, half-precision CAST"},
       {"max_output_bytes", OptionType::Int, int64_t{16} << 20,
        "results larger than this many bytes stay computed at run time"}});
}

} // namespace tico::circle_passes
