// quantized-model-io: the model takes and returns integer codes instead of float32 values,
// the interface the original converter writes for quantized programs. Off in the default
// pipeline (docs/quantization.md, "Model interface"): by default the Circle model keeps the
// program's float32 interface, with one QUANTIZE per input and one DEQUANTIZE per output,
// which every runtime can feed; NPU toolchains that expect quantized model inputs switch it on.
//
//   %xq: u8 {q} = quantize(%x, ...)           %x: u8 {q}   (the input itself is quantized)
//   ... readers of %xq ...               ->   ... readers of %x ...
//   %y = dequantize(%yq, ...); return %y       return %yq
//
// * A float32 user input is quantized when every reader is a quantize node with the same
//   known parameters and an 8- or 16-bit storage type (a 4-bit input has no Circle runtime
//   that feeds it; an input also read in float, or returned, stays float).
// * A user output produced by a dequantize of a quantized tensor returns that tensor.
// Both keep the shapes; only dtype and parameters of the interface change.
#include "quant_passes.h"
#include "quant_support.h"

#include "tico/ir/graph.h"

#include <algorithm>

namespace tico::quant_passes {
namespace {

const std::string kPass = "quantized-model-io";

bool interfaceStorage(DType dtype) { return dtype == DType::UInt8 || dtype == DType::Int8 || dtype == DType::Int16; }

// The quantization every reader of `x` applies, when all readers are quantize nodes that
// agree; nullopt otherwise.
std::optional<QNodeParams> commonQuantization(const Graph &graph, const Value *x) {
  if (x->users().empty() || graph.isGraphOutput(x))
    return std::nullopt;
  std::optional<QNodeParams> common;
  for (const Node *user : x->users()) {
    if (!isQuantizeNode(*user) || user->input(0) != x)
      return std::nullopt;
    auto params = knownQNodeParams(*user, kPass);
    if (!params || !interfaceStorage(params->storage()))
      return std::nullopt;
    if (common && (common->storage() != params->storage() || !(common->params == params->params)))
      return std::nullopt;
    common = params;
  }
  return common;
}

bool quantizeInputs(Graph &graph) {
  bool changed = false;
  for (Value *x : graph.userInputs()) {
    if (!x->isTensor() || x->dtype() != DType::Float32 || x->isQuantized())
      continue;
    auto q = commonQuantization(graph, x);
    if (!q)
      continue;
    std::vector<Node *> quantizes(x->users().begin(), x->users().end());
    std::sort(quantizes.begin(), quantizes.end());
    quantizes.erase(std::unique(quantizes.begin(), quantizes.end()), quantizes.end());
    x->setType(q->storage(), x->shape());
    x->setQuant(q->params);
    for (Node *quantize : quantizes) {
      graph.replaceAllUsesWith(quantize->output(), x);
      graph.eraseNode(quantize);
    }
    changed = true;
  }
  return changed;
}

bool returnCodes(Graph &graph) {
  bool changed = false;
  for (std::size_t i = 0; i < graph.outputs().size(); ++i) {
    const GraphOutput &out = graph.outputs()[i];
    if (out.kind != OutputKind::User || !out.value.isValue())
      continue;
    Value *dequantized = out.value.asValue();
    Node *producer = dequantized->producer();
    if (producer == nullptr || !isDequantizeNode(*producer) || !producer->arg(0).isValue())
      continue;
    Value *codes = producer->input(0);
    if (!codes->isQuantized() || !interfaceStorage(codes->dtype()))
      continue;
    graph.setOutputValue(i, Argument::value(codes));
    if (dequantized->users().empty() && !graph.isGraphOutput(dequantized))
      graph.eraseNode(producer);
    changed = true;
  }
  return changed;
}

class QuantizedModelIO final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    const bool inputs = quantizeInputs(graph);
    const bool outputs = returnCodes(graph);
    return inputs || outputs;
  }
};

} // namespace

void registerQuantizedModelIO(Registrar &r) {
  PassSpec spec;
  spec.name = kPass;
  spec.summary = "Quantized model interface: float inputs quantized on entry and outputs dequantized on exit become "
                 "integer-code inputs and outputs (the original converter's interface)";
  spec.create = [](const Options &) -> std::unique_ptr<Pass> { return std::make_unique<QuantizedModelIO>(); };
  r.addPass(std::move(spec));
}

} // namespace tico::quant_passes
