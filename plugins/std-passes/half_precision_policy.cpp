// Not a pattern: a whole-graph policy over constants, every node's types and the signature, not a match on an op.
// half-precision-policy: programs exported in bfloat16 or float16 are computed in float32.
//
// Circle runtimes compute little in half precision (onert 0.2 loads no BFLOAT16 tensor and
// casts neither half type), and PyTorch's own CPU kernels widen bfloat16 / float16 operands to
// float32 and round each result back. This pass removes the half types from the graph:
//   - constants (parameters, buffers, lifted constants, pass-made constants) become float32
//     views of a widened storage (Storage::widenedToFloat32): no byte is converted here; the
//     Circle writer converts while it streams the weights from the mapped .pt2. Views of one
//     storage keep sharing one widened storage, so tied weights stay tied;
//   - every node output, and every dtype argument (`_to_copy(dtype=bfloat16)`, `to.dtype`,
//     `full(dtype=...)`, `arange(dtype=...)`, `sum(dtype=...)`, ...) of a half type becomes
//     float32, so casts to a half type become same-dtype casts that remove-nop drops;
//   - user inputs and outputs become float32 (option interface=float32, the default), or keep
//     float16 with a cast at the boundary (interface=float16, float16 only: no Circle runtime
//     here has BFLOAT16 tensors, so bfloat16 interfaces are always float32).
// Numerical consequence: the roundings to half precision between ops disappear, so the result
// is eager PyTorch on the float32 copy of the model (`model.float()`) rather than the half
// model's rounding at every step.
//
// A bit-level reinterpretation of a half tensor (`view.dtype` between a half type and another
// 16-bit type) has no float32 meaning: the pass fails naming the node.
#include "pass_support.h"
#include "passes.h"

#include <map>

namespace tico::passes {
namespace {

bool isHalf(DType dtype) { return dtype == DType::Float16 || dtype == DType::BFloat16; }

class HalfPrecisionPolicy final : public Pass {
public:
  explicit HalfPrecisionPolicy(bool float16_interface) : float16_interface_(float16_interface) {}

  bool run(Graph &graph, PassContext &context) override {
    changed_ = false;
    widened_.clear();
    for (Node *node : snapshot(graph))
      checkReinterpretation(*node);
    std::vector<Value *> float16_inputs;
    for (const GraphInput &input : graph.inputs()) {
      Value *v = input.value;
      if (v == nullptr || !v->isTensor() || !isHalf(v->dtype()))
        continue;
      if (v->isConstant()) {
        widenConstant(v);
      } else if (float16_interface_ && v->dtype() == DType::Float16) {
        float16_inputs.push_back(v);
      } else {
        retype(v);
      }
    }
    for (Value *v : graph.constants())
      if (v->isTensor() && isHalf(v->dtype()))
        widenConstant(v);
    std::vector<std::size_t> float16_outputs;
    const auto &outputs = graph.outputs();
    for (std::size_t i = 0; i < outputs.size(); ++i)
      if (float16_interface_ && outputs[i].kind == OutputKind::User && outputs[i].value.isValue() &&
          outputs[i].value.asValue()->isTensor() && outputs[i].value.asValue()->dtype() == DType::Float16)
        float16_outputs.push_back(i);
    for (Node *node : snapshot(graph))
      if (!isFloat16Boundary(graph, *node))
        computeInFloat32(*node);
    keepFloat16Interface(graph, context.registry(), float16_inputs, float16_outputs);
    return changed_;
  }

private:
  void retype(Value *v) {
    v->setType(DType::Float32, v->shape());
    changed_ = true;
  }

  void widenConstant(Value *v) {
    const TensorData &data = *v->constant();
    std::shared_ptr<const Storage> &widened = widened_[data.storage.get()];
    if (!widened)
      widened = Storage::widenedToFloat32(data.storage, data.dtype);
    auto view = std::make_shared<TensorData>(data);
    view->storage = widened;
    view->dtype = DType::Float32;
    v->setConstant(std::move(view));
    retype(v);
  }

  static void checkReinterpretation(const Node &node) {
    if (!isOp(node, {"aten::view.dtype"}))
      return;
    const DType from = node.input(0)->dtype();
    const DType to = node.arg(1).asScalarType();
    if ((isHalf(from) || isHalf(to)) && from != to)
      throw Error("half-precision-policy: node '" + node.name() + "' (" + node.op().str() +
                  ") reinterprets the bits of a " + std::string(torchDTypeName(from)) + " tensor as " +
                  std::string(torchDTypeName(to)) +
                  "; computing in float32 changes those bits (disable the pass to keep half-precision tensors)");
  }

  void computeInFloat32(Node &node) {
    for (std::size_t i = 0; i < node.numArgs(); ++i) {
      const Argument &arg = node.arg(i);
      if (arg.kind() == Argument::Kind::ScalarType && isHalf(arg.asScalarType())) {
        node.setArg(i, Argument::scalarType(DType::Float32));
        changed_ = true;
      }
    }
    // half_to_float asks a half softmax for a float32 result; the input is float32 now, and
    // PyTorch accepts the flag only for half inputs.
    if (isOp(node, {"aten::_softmax.default", "aten::_log_softmax.default"}) && node.arg(2).isBool() &&
        node.arg(2).asBool()) {
      node.setArg(2, Argument::boolean(false));
      changed_ = true;
    }
    for (Value *out : node.outputs())
      if (out->isTensor() && isHalf(out->dtype()))
        retype(out);
  }

  // interface=float16: float16 user inputs stay float16 and are widened by a cast before
  // their first use; float16 user outputs are narrowed by a cast after the float32 compute.
  void keepFloat16Interface(Graph &graph, const Registry &types, const std::vector<Value *> &inputs,
                            const std::vector<std::size_t> &outputs) {
    Node *first = graph.nodes().empty() ? nullptr : graph.nodes().front().get();
    for (Value *input : inputs) {
      if (!input->hasUsers() && !graph.isGraphOutput(input))
        continue;
      if (widenedOnlyByCasts(graph, input))
        continue; // an earlier run placed the cast (the pass may run in a fixed-point stage)
      Builder b(graph, types, first, input->name());
      Value *wide = b.cast(input, DType::Float32);
      replaceUsesExceptReader(graph, input, wide, wide->producer());
      changed_ = true;
    }
    for (std::size_t index : outputs) {
      Value *value = graph.outputs()[index].value.asValue();
      if (value->dtype() == DType::Float16)
        continue; // a float16 input returned as it is
      Builder b(graph, types, nullptr, value->name());
      graph.setOutputValue(index, Argument::value(b.cast(value, DType::Float16)));
      changed_ = true;
    }
  }

  // interface=float16: a float32 -> float16 cast that produces a user output is the narrowing
  // at the boundary (placed by an earlier run, or the model's own final cast): it stays.
  bool isFloat16Boundary(const Graph &graph, const Node &node) const {
    return float16_interface_ && isOp(node, {"aten::_to_copy.default"}) &&
           node.output()->dtype() == DType::Float16 && node.input(0)->dtype() == DType::Float32 &&
           graph.isGraphOutput(node.output());
  }

  static bool widenedOnlyByCasts(const Graph &graph, const Value *input) {
    if (graph.isGraphOutput(input))
      return false;
    for (const Node *user : input->users())
      if (!isOp(*user, {"aten::_to_copy.default"}) || user->output()->dtype() != DType::Float32)
        return false;
    return true;
  }

  bool float16_interface_;
  bool changed_ = false;
  std::map<const Storage *, std::shared_ptr<const Storage>> widened_;
};

} // namespace

void registerHalfPrecisionPolicy(Registrar &r) {
  PassSpec spec;
  spec.name = "half-precision-policy";
  spec.summary = "Compute bfloat16 / float16 programs in float32; weights widened while the Circle file is written";
  spec.options = {OptionSpec{"interface", OptionType::String, std::string("float32"),
                             "dtype of half-precision user inputs and outputs: float32, or float16 (keeps "
                             "float16 ones; bfloat16 ones are always float32)"}};
  spec.create = [](const Options &o) -> std::unique_ptr<Pass> {
    const std::string &interface = o.getString("interface");
    if (interface != "float32" && interface != "float16")
      throw Error("half-precision-policy: interface must be 'float32' or 'float16', not '" + interface + "'");
    return std::make_unique<HalfPrecisionPolicy>(interface == "float16");
  };
  r.addPass(std::move(spec));
}

} // namespace tico::passes
