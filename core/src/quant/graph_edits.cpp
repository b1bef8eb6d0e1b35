// Quantizers' graph edits (tico/quant/graph_edits.h).
#include "tico/quant/graph_edits.h"

#include "tico/ops/torch_ops.h"
#include "tico/support/error.h"

namespace tico::quant {
namespace {

namespace qd = tico::ops::quantized_decomposed;
namespace aten = tico::ops::aten;

// The first node of the graph that reads `value` (the new nodes go right before it, which
// keeps definitions ahead of uses without knowing where the value was defined).
Node *firstReader(const Graph &graph, const Value &value) {
  for (const auto &node : graph.nodes())
    for (const Node *user : value.users())
      if (user == node.get())
        return node.get();
  return nullptr;
}

} // namespace

Encoding gridOf(int bits, bool is_signed) {
  Encoding e;
  if (bits == 4 || bits == 8) {
    e.storage = is_signed ? DType::Int8 : DType::UInt8;
  } else if (bits == 16 && is_signed) {
    e.storage = DType::Int16;
  } else {
    throw Error("no integer grid of " + std::to_string(bits) + " bits (" + (is_signed ? "signed" : "unsigned") +
                "); quantizers here use 4, 8 (signed or unsigned) or 16 (signed) bits");
  }
  e.quant_min = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
  e.quant_max = is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  return e;
}

Value *quantizeActivation(Graph &graph, Value &value, const Encoding &encoding) {
  const QuantParams &q = encoding.params;
  if (!q.isPerTensor() || q.scale.size() != 1 || q.zero_point.size() != 1)
    throw Error("quantizing activation '" + value.name() + "': only per-tensor parameters apply to activations");
  if (!value.isTensor() || value.dtype() != DType::Float32)
    throw Error("quantizing activation '" + value.name() + "': it is not a float32 tensor");
  Node *before = firstReader(graph, value);
  const bool is_output = graph.isGraphOutput(&value);
  if (before == nullptr && !is_output)
    return &value; // nothing reads it: nothing to quantize
  const auto args = [&](Value *input) {
    return std::vector<Argument>{Argument::value(input),
                                 Argument::real(q.scale[0]),
                                 Argument::integer(q.zero_point[0]),
                                 Argument::integer(encoding.quant_min),
                                 Argument::integer(encoding.quant_max),
                                 Argument::scalarType(encoding.storage)};
  };
  Node *quantize = graph.createNode(qd::quantize_per_tensor_default.key(), args(&value), encoding.storage,
                                    value.shape(), before, value.name() + "_q");
  Node *dequantize = graph.createNode(qd::dequantize_per_tensor_default.key(), args(quantize->output()),
                                      DType::Float32, value.shape(), before, value.name() + "_dq");
  graph.replaceAllUsesWith(&value, dequantize->output());
  quantize->setArg(std::size_t{0}, Argument::value(&value)); // the one reader that must keep the float value
  return dequantize->output();
}

namespace {

// A [rows, columns] weight with one grid per row and group of `block` consecutive columns
// (QuantParams per block along axis 1, scales row-major [rows][columns / block]). Circle's
// QuantizationParameters hold one scale per tensor or per channel, so the groups are spelled out
// as ops every runtime has: the codes are dequantized with scale 1 (exact integers in float),
// viewed as [rows, groups, block], shifted by the zero points and scaled per group, and viewed
// back. The weight stays 4/8-bit in the file; its float form exists only while the model runs.
Value *groupDequantized(Graph &graph, Node &node, const Value &weight, Value *stored, const Encoding &encoding) {
  const QuantParams &q = encoding.params;
  const std::vector<int64_t> &sizes = weight.constant()->sizes;
  if (sizes.size() != 2 || *q.axis != 1 || *q.block_size <= 0 || sizes[1] % *q.block_size != 0)
    throw Error("node '" + node.name() + "': per-block weights are written for 2-D weights with blocks of columns "
                "(axis 1) that divide the column count; '" + weight.name() + "' does not fit");
  const int64_t rows = sizes[0], block = *q.block_size, groups = sizes[1] / block;
  if (static_cast<int64_t>(q.scale.size()) != rows * groups || q.zero_point.size() != q.scale.size())
    throw Error("node '" + node.name() + "': '" + weight.name() + "' needs " + std::to_string(rows * groups) +
                " scales and zero points (one per row and group), got " + std::to_string(q.scale.size()));
  const std::string base = weight.name();
  Node *codes = graph.createNode(qd::dequantize_per_tensor_default.key(),
                                 {Argument::value(stored), Argument::real(1.0), Argument::integer(0),
                                  Argument::integer(encoding.quant_min), Argument::integer(encoding.quant_max),
                                  Argument::scalarType(encoding.storage)},
                                 DType::Float32, weight.shape(), &node, base + "_dq_codes");
  const Shape grouped = staticShape({rows, groups, block});
  Node *view = graph.createNode(aten::reshape_default.key(), {Argument::value(codes->output()), Argument::ints({rows, groups, block})},
                                DType::Float32, grouped, &node, base + "_dq_groups");
  std::vector<float> zero_points(q.zero_point.begin(), q.zero_point.end());
  Value *zps = graph.addConstant(base + "_group_zero_points",
                                 std::make_shared<TensorData>(TensorData::fromVector(DType::Float32, {rows, groups, 1}, zero_points)));
  Value *scales = graph.addConstant(base + "_group_scales",
                                    std::make_shared<TensorData>(TensorData::fromVector(DType::Float32, {rows, groups, 1}, q.scale)));
  Node *centred = graph.createNode(aten::sub_Tensor.key(), {Argument::value(view->output()), Argument::value(zps)},
                                   DType::Float32, grouped, &node, base + "_dq_centred");
  Node *scaled = graph.createNode(aten::mul_Tensor.key(), {Argument::value(centred->output()), Argument::value(scales)},
                                  DType::Float32, grouped, &node, base + "_dq_scaled");
  Node *back = graph.createNode(aten::reshape_default.key(), {Argument::value(scaled->output()), Argument::ints(sizes)},
                                DType::Float32, weight.shape(), &node, base + "_dq");
  return back->output();
}

} // namespace

Value *dequantizedWeight(Graph &graph, Node &node, std::string_view arg, std::shared_ptr<const TensorData> codes,
                         const Encoding &encoding) {
  const Argument &current = node.arg(arg);
  if (!current.isValue() || !current.asValue()->isConstant())
    throw Error("node '" + node.name() + "': argument '" + std::string(arg) + "' is not a constant weight");
  const Value &weight = *current.asValue();
  if (!codes || codes->dtype != encoding.storage || codes->sizes != weight.constant()->sizes)
    throw Error("node '" + node.name() + "': the integer codes for '" + weight.name() +
                "' must be a " + std::string(dtypeName(encoding.storage)) + " tensor of the weight's shape");
  const QuantParams &q = encoding.params;
  Value *stored = graph.addConstant(weight.name() + "_codes", std::move(codes));
  Node *dequantize = nullptr;
  if (q.isPerTensor()) {
    dequantize = graph.createNode(qd::dequantize_per_tensor_default.key(),
                                  {Argument::value(stored), Argument::real(q.scale.at(0)),
                                   Argument::integer(q.zero_point.at(0)), Argument::integer(encoding.quant_min),
                                   Argument::integer(encoding.quant_max), Argument::scalarType(encoding.storage)},
                                  DType::Float32, weight.shape(), &node, weight.name() + "_dq");
  } else if (q.isPerBlock()) {
    node.setArg(arg, Argument::value(groupDequantized(graph, node, weight, stored, encoding)));
    return node.input(arg);
  } else {
    const auto channels = static_cast<int64_t>(q.scale.size());
    Value *scales = graph.addConstant(weight.name() + "_scales",
                                      std::make_shared<TensorData>(TensorData::fromVector(DType::Float32, {channels}, q.scale)));
    Value *zero_points = graph.addConstant(
        weight.name() + "_zero_points",
        std::make_shared<TensorData>(TensorData::fromVector(DType::Int64, {channels}, q.zero_point)));
    dequantize = graph.createNode(qd::dequantize_per_channel_default.key(),
                                  {Argument::value(stored), Argument::value(scales), Argument::value(zero_points),
                                   Argument::integer(*q.axis), Argument::integer(encoding.quant_min),
                                   Argument::integer(encoding.quant_max), Argument::scalarType(encoding.storage)},
                                  DType::Float32, weight.shape(), &node, weight.name() + "_dq");
  }
  node.setArg(arg, Argument::value(dequantize->output()));
  return dequantize->output();
}

std::string subtractFromBias(Graph &graph, Node &node, const std::vector<double> &shift) {
  const Argument *bias = node.findArg("bias");
  if (bias == nullptr)
    return "it takes no bias";
  Value *old = bias->isValue() ? bias->asValue() : nullptr;
  const auto channels = static_cast<int64_t>(shift.size());
  std::vector<float> values(shift.size(), 0.0f);
  std::vector<int64_t> sizes = {channels};
  if (old != nullptr) {
    if (!old->isConstant() || old->dtype() != DType::Float32 || old->constant()->numel() != channels)
      return "its bias is not a float32 constant of " + std::to_string(channels) + " values";
    old->constant()->copyContiguousTo(reinterpret_cast<std::byte *>(values.data()));
    sizes = old->constant()->sizes;
  }
  for (std::size_t o = 0; o < values.size(); ++o)
    values[o] = static_cast<float>(values[o] - shift[o]);
  Value *corrected = graph.addConstant((old != nullptr ? old->name() : node.name() + "_bias") + "_corrected",
                                       std::make_shared<TensorData>(TensorData::fromVector(DType::Float32, sizes, values)));
  if (old != nullptr)
    node.replaceInput(old, corrected);
  else
    node.setArg("bias", Argument::value(corrected));
  return {};
}

bool isQuantized(const Value &value) {
  if (const Node *producer = value.producer())
    if (producer->opId() == qd::dequantize_per_tensor_default || producer->opId() == qd::dequantize_per_channel_default)
      return true;
  for (const Node *user : value.users())
    if (user->opId() == qd::quantize_per_tensor_default)
      return true;
  return false;
}

SelectorNames::SelectorNames(const Graph &graph) {
  for (const GraphInput &in : graph.inputs())
    if (in.value != nullptr && !in.target.empty())
      targets_[in.value] = in.target;
}

std::vector<std::string> SelectorNames::of(const Node &node) const {
  std::vector<std::string> out{node.name()};
  for (const Value *v : node.outputs())
    if (v->name() != node.name())
      out.push_back(v->name());
  for (const NamedArg &a : node.args())
    for (const Value *v : a.value.referencedValues()) {
      if (v == nullptr || !v->isConstant())
        continue;
      out.push_back(v->name());
      if (auto it = targets_.find(v); it != targets_.end()) {
        out.push_back(it->second);
        if (auto dot = it->second.rfind('.'); dot != std::string::npos)
          out.push_back(it->second.substr(0, dot)); // the module: "fc1" of "fc1.weight"
      }
    }
  return out;
}

} // namespace tico::quant
