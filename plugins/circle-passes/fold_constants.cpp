// fold-constants: evaluates operators whose inputs are all constants and replaces them by
// their results.
//
// The values come from a runtime's kernels through the runtime ABI (option `runtime`, default
// `builtin`, the built-in interpreter): the operator runs alone as a one-operator model, so a
// folded constant holds exactly what that runtime computes when the operator is left in place,
// and the pass keeps no kernels of its own. SHAPE of a static tensor is read from the model.
//
// The result becomes the payload of the operator's existing output tensor (same index, name
// and contract), so readers and signatures need no remapping; the operator is removed.
// Profiles (fold_rules.h decides what each may fold): `basic` evaluates arithmetic (ADD, SUB,
// MUL, DIV, MAXIMUM, MINIMUM, NEG, ABS, SQRT, RSQRT, EXP, LOG), CAST, views (RESHAPE, SQUEEZE,
// EXPAND_DIMS, TRANSPOSE), SHAPE of static tensors, GATHER, CONCATENATION, PACK, SLICE and
// FILL; `heavy` adds FULLY_CONNECTED, DEPTHWISE_CONV_2D, DEQUANTIZE and half-precision CAST.
// Results larger than `max_output_bytes` are not folded (they would grow the file), nor are
// subgraph outputs (the interface keeps its producer) or anything whose computed type/shape
// differs from what the model declares.
#include "constants.h"
#include "fold_on_runtime.h"
#include "fold_rules.h"
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

#include "tico/plugin/registry.h"
#include "tico/support/error.h"

namespace tico::circle_passes {
namespace {

class FoldConstants final : public CirclePass {
public:
  explicit FoldConstants(const Options &options)
      : max_bytes_(options.getInt("max_output_bytes")), runtime_name_(options.getString("runtime")) {
    const std::string &profile = options.getString("profile");
    if (profile == "basic")
      profile_ = FoldProfile::Basic;
    else if (profile == "heavy")
      profile_ = FoldProfile::Heavy;
    else
      throw Error("fold-constants: unknown profile '" + profile + "'; expected basic or heavy");
  }

  bool run(CircleModel &model, PassContext &context) override {
    const auto &spec = context.registry().requireRuntime(runtime_name_).spec;
    runtime_ = spec.create(Options::resolve("runtime '" + spec.name + "'", spec.options, {}));
    const bool changed = sweepToFixedPoint(model, [&](SubgraphEditor &e, int i) { return fold(e, i); });
    runtime_.reset();
    return changed;
  }

private:
  bool fold(SubgraphEditor &e, int i) const {
    if (e.sideEffects(i) || e.op(i).outputs.empty())
      return false;
    for (int32_t t : e.op(i).outputs)
      if (!e.validTensor(t) || e.isGraphOutput(t) || isDynamic(e.tensor(t)) || e.tensor(t).is_variable)
        return false;
    if (!mayFold(e, i, profile_))
      return false;
    std::vector<std::shared_ptr<const TensorData>> values;
    if (e.code(i) == BuiltinOperator::SHAPE) {
      auto shape = staticShape(e, i);
      if (!shape)
        return false;
      values.push_back(std::move(shape));
    } else {
      auto computed = evaluateOnRuntime(*runtime_, e, i);
      if (!computed)
        return false;
      values = std::move(*computed);
    }
    for (const auto &v : values)
      if (static_cast<int64_t>(v->nbytes()) > max_bytes_)
        return false;
    const std::vector<int32_t> outputs = e.op(i).outputs;
    e.removeOp(i);
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      CircleTensor &t = e.tensor(outputs[k]);
      t.buffer = e.model().addBuffer(payloadFromBytes(t.type, t.shape, values[k]->contiguousBytes()));
    }
    return true;
  }

  // SHAPE of a static tensor is part of the model, not a computation: its dims, as the declared
  // output type, when that output is declared [rank].
  static std::shared_ptr<const TensorData> staticShape(const SubgraphEditor &e, int i) {
    const auto &op = e.op(i);
    const auto *o = op.builtin_options.AsShapeOptions();
    const circle::TensorType type = o ? o->out_type : circle::TensorType::INT32;
    const auto &dims = e.tensor(op.inputs[0]).shape;
    const std::vector<int32_t> shape{static_cast<int32_t>(dims.size())};
    const CircleTensor &out = e.tensor(op.outputs[0]);
    if (out.type != type || out.shape != shape)
      return nullptr;
    return payloadFromInts(type, shape, std::vector<int64_t>(dims.begin(), dims.end()));
  }

  FoldProfile profile_ = FoldProfile::Basic;
  int64_t max_bytes_;
  std::string runtime_name_;
  std::unique_ptr<Runtime> runtime_; // for the duration of one run
};

} // namespace

void registerFoldConstants(Registrar &r) {
  registerCirclePass<FoldConstants>(
      r, "fold-constants", "evaluate operators whose inputs are all constant and store their results",
      {{"profile", OptionType::String, std::string("basic"),
        "basic: arithmetic, CAST, views, SHAPE, GATHER, CONCATENATION, PACK, SLICE, FILL; heavy: also "
        "FULLY_CONNECTED, DEPTHWISE_CONV_2D, DEQUANTIZE, half-precision CAST"},
       {"max_output_bytes", OptionType::Int, int64_t{16} << 20,
        "results larger than this many bytes stay computed at run time"},
       {"runtime", OptionType::String, std::string("builtin"),
        "the runtime whose kernels compute the folded values (a runtime plugin's name)"}});
}

} // namespace tico::circle_passes
