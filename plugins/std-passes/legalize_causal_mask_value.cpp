// legalize-causal-mask-value (LegalizeCausalMaskValue), off unless its option `enabled` is set
// (config alias legalize_causal_mask_value): an attention mask added to scores, i.e. a constant float operand
// of add.Tensor whose every element is 0 or "minus infinity" (below -1e38, which covers -inf
// and float32's lowest value however earlier folding rounded it), gets its minus-infinities
// replaced by `mask_value` (default -120). Quantized softmax kernels cannot represent -inf,
// and exp(-120) is already 0 in float32 next to any real score.
//
// This changes the model's numbers (rows that are masked entirely become uniform instead of
// NaN), hence the switch, off by default. The original converter looks only at lifted tensor
// constants; here any constant qualifies (after fold-constants the mask usually is one). A
// mask shared by several adds becomes one new constant; the old one is left to dead-code
// removal if nothing else reads it.
#include "pass_support.h"
#include "sweep_with_options.h"
#include "passes.h"

#include <cstring>
#include <map>

namespace tico::passes {
namespace {

constexpr double kMinusInfinityBelow = -1.0e38;

template <typename T>
std::shared_ptr<const TensorData> legalized(const TensorData &data, double replacement) {
  std::vector<std::byte> bytes = data.contiguousBytes();
  std::size_t n = bytes.size() / sizeof(T);
  std::vector<T> values(n);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  bool any = false;
  for (T v : values) {
    if (v != T(0) && !(static_cast<double>(v) < kMinusInfinityBelow))
      return nullptr; // not a 0 / -inf mask
    any |= v != T(0);
  }
  if (!any)
    return nullptr;
  for (T &v : values)
    if (static_cast<double>(v) < kMinusInfinityBelow)
      v = static_cast<T>(replacement);
  return std::make_shared<TensorData>(TensorData::fromVector(data.dtype, data.sizes, values));
}

// One run of the pass: the masks it has legalized so far, so a mask shared by several adds
// becomes one new constant (a fresh instance for every run).
class MaskLegalizer {
public:
  explicit MaskLegalizer(double value) : value_(value) {}

  bool operator()(Node &node, rewrite::Rewriter &rewriter) {
    bool changed = false;
    for (std::size_t i = 0; i < 2; ++i) {
      if (!isTensorValue(node.arg(i)))
        continue;
      Value *mask = node.input(i);
      if (!mask->isConstant())
        continue;
      auto it = replaced_.find(mask);
      if (it == replaced_.end()) {
        std::shared_ptr<const TensorData> data;
        if (mask->dtype() == DType::Float32)
          data = legalized<float>(*mask->constant(), value_);
        else if (mask->dtype() == DType::Float64)
          data = legalized<double>(*mask->constant(), value_);
        if (!data)
          continue;
        it = replaced_.emplace(mask, rewriter.graph().addConstant(mask->name() + "_legalized", data)).first;
      }
      rewriter.setArg(&node, i, Argument::value(it->second));
      changed = true;
    }
    return changed;
  }

private:
  double value_;
  std::map<const Value *, Value *> replaced_;
};

} // namespace

void registerLegalizeCausalMaskValue(Registrar &r) {
  r.addPass(sweepPass(
      "legalize-causal-mask-value",
      "Replace -inf in constant attention masks by a finite value (option enabled; config legalize_causal_mask_value)",
      {
          OptionSpec{"enabled", OptionType::Bool, false,
                     "rewrite at all (off by default: fully masked rows change from NaN to uniform)"},
          OptionSpec{"mask_value", OptionType::Float, -120.0, "the value masked positions get"},
      },
      {"aten::add.Tensor"}, [](const Options &o) -> rewrite::RewriteFn {
        if (!o.getBool("enabled"))
          return [](Node &, rewrite::Rewriter &) { return false; };
        // std::function copies its target: the state is shared through a pointer.
        auto legalizer = std::make_shared<MaskLegalizer>(o.getFloat("mask_value"));
        return [legalizer](Node &node, rewrite::Rewriter &rewriter) { return (*legalizer)(node, rewriter); };
      }));
}

} // namespace tico::passes
