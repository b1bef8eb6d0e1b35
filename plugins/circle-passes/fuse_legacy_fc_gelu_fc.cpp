// fuse-legacy-fc-gelu-fc: recovers GELU from the exact-erf pattern older exporters emitted
// around a feed-forward block:
//
//   FC3( MUL( FC1(x), ADD( Erf(FC2(x)), 1 ) ) )     with FC2 = FC1 scaled by sqrt(1/2)
//
// where Erf is the custom operator "Erf". Since x·(1 + erf(x/√2)) = 2·GELU(x), the block
// becomes FC3'(GELU(FC1(x))) with FC3's weights doubled (new constants). FC1 and FC2 must
// read the same input with the same keep_num_dims and no fused activation; FC2's weights and
// bias must equal FC1's times sqrt(1/2) within `tolerance`. FC2, Erf, ADD and MUL are removed
// when nothing else reads them (dce would keep the custom Erf).
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

#include <cmath>

namespace tico::circle_passes {
namespace {

struct Fc {
  int32_t input, weights, bias, output;
  bool keep_num_dims;
};

std::optional<Fc> plainFc(const SubgraphEditor &e, int op, bool allow_activation) {
  if (op < 0 || e.code(op) != BuiltinOperator::FULLY_CONNECTED)
    return std::nullopt;
  const CircleOperator &o = e.op(op);
  const auto *fc = o.builtin_options.AsFullyConnectedOptions();
  if (!fc || fc->weights_format != circle::FullyConnectedOptionsWeightsFormat::DEFAULT || o.inputs.size() < 2 ||
      o.outputs.size() != 1 || (!allow_activation && fc->fused_activation_function != circle::ActivationFunctionType::NONE))
    return std::nullopt;
  Fc f{o.inputs[0], o.inputs[1], o.inputs.size() > 2 ? o.inputs[2] : -1, o.outputs[0], fc->keep_num_dims};
  if (!e.isConstantTensor(f.weights) || !isPlainFloat32(e.tensor(f.weights)) || !e.validTensor(f.output) ||
      !isPlainFloat32(e.tensor(f.output)))
    return std::nullopt;
  if (f.bias >= 0 && (!e.isConstantTensor(f.bias) || !isPlainFloat32(e.tensor(f.bias))))
    return std::nullopt;
  return f;
}

bool scaledMatch(const SubgraphEditor &e, int32_t source, int32_t scaled, double factor, double tolerance) {
  if (source < 0 || scaled < 0)
    return source == scaled;
  auto a = constantAsFloats(e.model(), e.tensor(source)), b = constantAsFloats(e.model(), e.tensor(scaled));
  if (!a || !b || e.tensor(source).shape != e.tensor(scaled).shape)
    return false;
  for (std::size_t i = 0; i < a->size(); ++i)
    if (!std::isfinite((*a)[i]) || std::fabs((*a)[i] * factor - (*b)[i]) > tolerance)
      return false;
  return true;
}

// The non-constant operand of binary `op` beside a splat constant `value`.
int32_t besideSplat(const SubgraphEditor &e, int op, double value) {
  const auto &in = e.op(op).inputs;
  if (in.size() != 2 || !hasNoFusedActivation(e.op(op)))
    return -1;
  for (int k = 0; k < 2; ++k)
    if (e.isConstantTensor(in[k]) && constantIsSplat(e.model(), e.tensor(in[k]), value))
      return in[1 - k];
  return -1;
}

bool fuse(SubgraphEditor &e, int back, double tolerance) {
  auto fc3 = plainFc(e, back, true);
  if (!fc3)
    return false;
  const int mul = e.producer(fc3->input);
  if (mul < 0 || e.code(mul) != BuiltinOperator::MUL || e.op(mul).inputs.size() != 2 ||
      !hasNoFusedActivation(e.op(mul)))
    return false;
  for (int k = 0; k < 2; ++k) {
    const int32_t front_out = e.op(mul).inputs[k], add_out = e.op(mul).inputs[1 - k];
    auto fc1 = plainFc(e, e.producer(front_out), false);
    const int add = e.producer(add_out);
    if (!fc1 || add < 0 || e.code(add) != BuiltinOperator::ADD)
      continue;
    const int32_t erf_out = besideSplat(e, add, 1.0);
    const int erf = e.producer(erf_out);
    if (erf < 0 || e.code(erf) != BuiltinOperator::CUSTOM || customCodeOf(e.model(), e.op(erf)) != "Erf" ||
        e.op(erf).inputs.size() != 1)
      continue;
    auto fc2 = plainFc(e, e.producer(e.op(erf).inputs[0]), false);
    if (!fc2 || fc2->input != fc1->input || fc2->keep_num_dims != fc1->keep_num_dims)
      continue;
    const double factor = std::sqrt(0.5);
    if (!scaledMatch(e, fc1->weights, fc2->weights, factor, tolerance) ||
        !scaledMatch(e, fc1->bias, fc2->bias, factor, tolerance))
      continue;
    const CircleTensor &f1 = e.tensor(fc1->output);
    if (!sameContract(f1, e.tensor(fc2->output)) || !sameContract(f1, e.tensor(erf_out)) ||
        !sameContract(f1, e.tensor(fc3->input)))
      continue;
    // GELU(FC1(x)) feeds a copy of FC3 with doubled weights.
    int32_t gelu = e.addTensorLike(fc1->output, f1.shape, derivedName(e, fc1->output, "gelu"));
    e.tensor(gelu).shape_signature = e.tensor(fc1->output).shape_signature;
    e.addOp(BuiltinOperator::GELU, {fc1->output}, {gelu}, makeOptions(circle::GeluOptionsT{}), back);
    std::vector<float> w = *constantAsFloats(e.model(), e.tensor(fc3->weights));
    for (float &v : w)
      v *= 2.0f;
    std::vector<int32_t> wshape = e.tensor(fc3->weights).shape;
    int32_t doubled = e.addConstant(circle::TensorType::FLOAT32, wshape, payloadFromFloats(wshape, w),
                                    derivedName(e, fc3->output, "weights"));
    e.setInput(back, 0, gelu);
    e.setInput(back, 1, doubled);
    // The old branch is dead now. `dce` keeps custom operators (it cannot know they are
    // pure), so the pass removes the Erf branch it matched itself: MUL, ADD, Erf, FC2, each
    // only once nothing reads its result any more.
    for (int dead : {mul, add, erf, e.producer(e.op(erf).inputs[0])})
      if (dead >= 0 && e.alive(dead) && e.useCount(e.op(dead).outputs[0]) == 0)
        e.removeOp(dead);
    return true;
  }
  return false;
}

class FuseLegacyFcGeluFc final : public CirclePass {
public:
  explicit FuseLegacyFcGeluFc(const Options &options) : tolerance_(options.getFloat("tolerance")) {}

  bool run(CircleModel &model, PassContext &) override {
    return sweepToFixedPoint(model, [&](SubgraphEditor &e, int i) { return fuse(e, i, tolerance_); });
  }

private:
  double tolerance_;
};

} // namespace

void registerFuseLegacyFcGeluFc(Registrar &r) {
  registerCirclePass<FuseLegacyFcGeluFc>(
      r, "fuse-legacy-fc-gelu-fc",
      "FC3(FC1(x) * (1 + Erf(FC2(x)))) with FC2 = FC1/sqrt(2) -> FC3'(GELU(FC1(x))) (custom Erf, legacy exports)",
      {{"tolerance", OptionType::Float, 1e-5, "absolute tolerance of the FC2 = FC1 * sqrt(1/2) check"}});
}

} // namespace tico::circle_passes
