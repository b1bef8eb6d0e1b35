// Not a pattern: a whole-graph report (every problem in one error), rooted at no op.
// check-missing-qparams (the original's missing-qparam report, made an error): after the
// quantization bundle, lists every float tensor left in the quantized part of the graph, so
// that conversion stops instead of writing a half-quantized Circle file:
//
// * mixed ops (always errors): an op other than quantize/dequantize that reads or writes a
//   quantized tensor and also reads or writes a float tensor without parameters (a bias that
//   could not be quantized, a result the bundle could not give parameters to, a float operand
//   of a quantized op). Circle's quantized kernels cannot run them.
// * float islands (errors with strict=true, the default): an op that reads a dequantized
//   activation and computes in float (an op the bundle has no quantized form for, e.g. a float
//   exp or rsqrt between quantized layers). With strict=false they are kept: the Circle model computes
//   them in float between DEQUANTIZE and QUANTIZE, as the quantized program says.
//
// Each entry names the tensor, its dtype and shape, the op that reads or writes it and the
// tensor's producer. Graphs without any quantized tensor are not checked.
#include "quant_passes.h"
#include "quant_support.h"

#include "tico/pass/pass.h"

#include <sstream>

namespace tico::quant_passes {
namespace {

std::string typeOf(const Value *v) {
  std::ostringstream text;
  text << dtypeName(v->dtype()) << "[";
  for (std::size_t i = 0; i < v->shape().size(); ++i) {
    const Dim &d = v->shape()[i];
    text << (i ? ", " : "");
    if (d.isSymbolic())
      text << d.expr();
    else
      text << d.value();
  }
  text << "]";
  return text.str();
}

std::string producerOf(const Value *v) {
  if (const Node *p = v->producer())
    return "'" + p->name() + "' (" + p->op().str() + ")";
  return v->isConstant() ? "a constant" : "a graph input";
}

std::string nodeText(const Node &n) { return "'" + n.name() + "' (" + n.op().str() + ")"; }

bool isPlainFloat(const Value *v) { return v->isTensor() && isFloating(v->dtype()) && !v->isQuantized(); }

class CheckMissingQParams final : public Pass {
public:
  explicit CheckMissingQParams(bool strict) : strict_(strict) {}

  bool run(Graph &graph, PassContext &) override {
    std::vector<std::string> mixed, islands;
    for (const auto &owned : graph.nodes()) {
      const Node &node = *owned;
      if (isQuantizeNode(node) || isDequantizeNode(node))
        continue;
      std::vector<const Value *> inputs;
      for (const NamedArg &a : node.args())
        for (const Value *v : a.value.referencedValues())
          if (v != nullptr && v->isTensor())
            inputs.push_back(v);
      bool quantized = false;
      for (const Value *v : inputs)
        quantized |= v->isQuantized();
      for (const Value *v : node.outputs())
        quantized |= v->isQuantized();
      if (quantized) {
        for (const Value *v : inputs)
          if (isPlainFloat(v) && !takesFloatConstant(node, v))
            mixed.push_back("float tensor '" + v->name() + "' (" + typeOf(v) + ") read by " + nodeText(node) +
                            ", produced by " + producerOf(v));
        for (const Value *v : node.outputs())
          if (isPlainFloat(v))
            mixed.push_back("float tensor '" + v->name() + "' (" + typeOf(v) + ") written by " + nodeText(node) +
                            ", which reads quantized tensors");
        continue;
      }
      for (const Value *v : inputs) {
        const Node *p = v->producer();
        if (p != nullptr && isDequantizeNode(*p) && !p->input(0)->isConstant())
          islands.push_back("float op " + nodeText(node) + " reads '" + v->name() + "', dequantized from '" +
                            p->input(0)->name() + "' by '" + p->name() + "'");
      }
    }
    std::string message;
    if (!mixed.empty()) {
      message += "check-missing-qparams: " + std::to_string(mixed.size()) +
                 " float tensor(s) left in the quantized region (the Circle file would be half-quantized):";
      for (const std::string &m : mixed)
        message += "\n  " + m;
    }
    if (strict_ && !islands.empty()) {
      message += std::string(message.empty() ? "check-missing-qparams:" : "\n") + " " + std::to_string(islands.size()) +
                 " op(s) compute in float between quantized tensors (no quantized form; set the option strict=false "
                 "of check-missing-qparams to keep them in float between DEQUANTIZE and QUANTIZE):";
      for (const std::string &m : islands)
        message += "\n  " + m;
    }
    if (!message.empty())
      throw Error(message);
    return false;
  }

private:
  bool strict_;
};

} // namespace

void registerCheckMissingQParams(Registrar &r) {
  PassSpec spec;
  spec.name = "check-missing-qparams";
  spec.summary = "Error listing every float tensor left in the quantized region after the quantization bundle";
  spec.options = {OptionSpec{"strict", OptionType::Bool, true,
                             "also refuse float ops between quantized tensors (false: keep them in float between "
                             "DEQUANTIZE and QUANTIZE)"}};
  spec.create = [](const Options &options) -> std::unique_ptr<Pass> {
    return std::make_unique<CheckMissingQParams>(options.getBool("strict"));
  };
  r.addPass(std::move(spec));
}

} // namespace tico::quant_passes
