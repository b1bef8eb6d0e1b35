// Placement of ptq's quantization (placement.h).
#include "placement.h"

#include "tico/ops/circle_ops.h"
#include "tico/ops/torch_ops.h"
#include "tico/quant/graph_edits.h"

#include <algorithm>
#include <set>

namespace tico::ptq {
namespace {

namespace aten = tico::ops::aten;
namespace cops = tico::ops::circle;
namespace qd = tico::ops::quantized_decomposed;

bool isNoneOr(const Node &node, std::string_view name, double value) {
  const Argument *a = node.findArg(name);
  return a == nullptr || a->isNone() || (a->isNumber() && a->asDouble() == value);
}

bool isNoneArg(const Node &node, std::string_view name) {
  const Argument *a = node.findArg(name);
  return a == nullptr || a->isNone();
}

bool zeroPadding(const Node &node) {
  const Argument *a = node.findArg("padding");
  if (a == nullptr || a->isNone())
    return true;
  if (a->isInt())
    return a->asInt() == 0;
  if (a->isIntList()) {
    const auto &v = a->asInts();
    return std::all_of(v.begin(), v.end(), [](int64_t p) { return p == 0; });
  }
  return false;
}

bool isActivation(const Value *v) {
  return v != nullptr && v->isTensor() && v->dtype() == DType::Float32 && !v->isConstant();
}

std::optional<std::vector<const Value *>> leading(const Node &node, std::size_t count) {
  if (node.numArgs() < count)
    return std::nullopt;
  std::vector<const Value *> out;
  for (std::size_t i = 0; i < count; ++i) {
    if (!node.arg(i).isValue())
      return std::nullopt;
    out.push_back(node.arg(i).asValue());
  }
  return out;
}

bool lastDimSoftmax(const Node &node) {
  if (node.numArgs() < 2 || !node.arg(0).isValue() || !node.arg(1).isInt())
    return false;
  const int64_t rank = node.input(0)->rank();
  int64_t dim = node.arg(1).asInt();
  if (dim < 0)
    dim += rank;
  const Argument *half = node.findArg("half_to_float");
  const bool no_half = half == nullptr || (half->isBool() && !half->asBool());
  return dim == rank - 1 && isNoneArg(node, "dtype") && no_half;
}

bool isConv(const Node &node) {
  const OpId op = node.opId();
  return op == cops::conv2d_default || op == cops::conv2d_padding || op == cops::depthwise_conv2d_default ||
         op == cops::depthwise_conv2d_padding || op == cops::transpose_conv_default;
}

// Walks back through ops that pass parameters on to the value where the activation is computed.
const Value *rootOf(const Value *v) {
  while (v != nullptr && v->producer() != nullptr && passesParameters(*v->producer()) &&
         v->producer()->arg(0).isValue())
    v = v->producer()->input(0);
  return v;
}

class Placer {
public:
  Placer(const Graph &graph, const NodeConfigs &configs, const PtqConfig &config)
      : graph_(graph), configs_(configs), avoid_(config.float_islands == "avoid") {}

  Placement run() {
    for (const auto &owned : graph_.nodes())
      if (candidate(*owned))
        ops_.insert(owned.get());
    const std::set<const Node *> candidates = ops_;
    if (avoid_) {
      for (bool changed = true; changed;) {
        changed = false;
        for (auto it = ops_.begin(); it != ops_.end();) {
          if (!surrounded(**it)) {
            it = ops_.erase(it);
            changed = true;
          } else {
            ++it;
          }
        }
      }
    }
    Placement p;
    std::set<const Value *> seen;
    const auto addRoot = [&](const Value *root, const Node *owner) {
      if (alreadyQuantized(*root) || !seen.insert(root).second)
        return;
      p.activations.push_back(root);
      p.owner[root] = owner;
    };
    for (const auto &owned : graph_.nodes()) {
      const Node *node = owned.get();
      if (auto w = weightOf(*node); w && !configs_.of(*node).skip && configs_.of(*node).weight_dtype != "none") {
        const Value *weight = node->input(w->arg);
        if (weight != nullptr && weight->isConstant() && weight->dtype() == DType::Float32)
          p.weights.push_back(*w);
      }
      if (!ops_.count(node)) {
        if (candidates.count(node))
          p.kept_float.push_back(node);
        continue;
      }
      p.quantized_ops.push_back(node);
      const std::vector<const Value *> inputs = *activationInputs(*node); // held: a temporary would dangle
      for (const Value *in : inputs) {
        const Value *root = rootOf(in);
        const Node *producer = root->producer();
        addRoot(root, producer != nullptr && ops_.count(producer) ? producer : node);
      }
      addRoot(node->output(), node);
    }
    // Views of quantized roots that the model returns.
    for (const Value *root : p.activations)
      collectReturnedViews(root, root, p);
    return p;
  }

private:
  // An op the bundle can quantize, configured to be, whose weight can be quantized.
  bool candidate(const Node &node) const {
    const NodeConfig &c = configs_.of(node);
    if (c.skip || c.act_dtype == "none" || node.numOutputs() != 1 || !isActivation(node.output()))
      return false;
    // A per-block weight is computed from its codes at run time (no integer kernel takes it):
    // the op stays float and only its weight is quantized.
    if (weightOf(node) && c.weight_granularity == "per-block")
      return false;
    auto inputs = activationInputs(node);
    if (!inputs)
      return false;
    for (const Value *in : *inputs) {
      const Value *root = rootOf(in);
      if (!alreadyQuantized(*root) && !isActivation(root))
        return false;
    }
    if (auto w = weightOf(node)) {
      const Value *weight = node.input(w->arg);
      if (weight == nullptr)
        return false;
      const bool dequantized = weight->producer() != nullptr && alreadyQuantized(*weight);
      const bool quantizable = weight->isConstant() && weight->dtype() == DType::Float32 && c.weight_dtype != "none";
      if (!dequantized && !quantizable)
        return false;
    }
    return true;
  }

  // Every activation of `node` can be quantized without a float op reading it.
  bool surrounded(const Node &node) const {
    const std::vector<const Value *> inputs = *activationInputs(node);
    for (const Value *in : inputs)
      if (!readersQuantized(rootOf(in)))
        return false;
    return readersQuantized(node.output());
  }

  // Every reader of `v` (through data movement) is a quantized op or a quantize node; the model
  // may return it.
  bool readersQuantized(const Value *v) const {
    if (alreadyQuantized(*v))
      return true;
    for (const Node *user : v->users()) {
      if (user->opId() == qd::quantize_per_tensor_default)
        continue;
      if (passesParameters(*user) && user->arg(0).isValue() && user->input(0) == v) {
        if (!readersQuantized(user->output()))
          return false;
        continue;
      }
      if (!ops_.count(user))
        return false;
      auto inputs = activationInputs(*user);
      if (std::find(inputs->begin(), inputs->end(), v) == inputs->end() &&
          std::none_of(inputs->begin(), inputs->end(), [&](const Value *in) { return rootOf(in) == rootOf(v); }))
        return false;
    }
    return true;
  }

  void collectReturnedViews(const Value *root, const Value *v, Placement &p) const {
    for (const Node *user : v->users())
      if (passesParameters(*user) && user->arg(0).isValue() && user->input(0) == v) {
        if (graph_.isGraphOutput(user->output()))
          p.returned_views.emplace_back(user->output(), root);
        collectReturnedViews(root, user->output(), p);
      }
  }

  const Graph &graph_;
  const NodeConfigs &configs_;
  bool avoid_;
  std::set<const Node *> ops_;
};

} // namespace

bool passesParameters(const Node &node) {
  const OpId op = node.opId();
  if (op == aten::permute_default || op == aten::view_default || op == aten::reshape_default ||
      op == aten::_unsafe_view_default || op == aten::squeeze_dim || op == aten::squeeze_dims ||
      op == aten::unsqueeze_default || op == aten::clone_default || op == aten::flatten_using_ints ||
      op == aten::transpose_int || op == aten::slice_Tensor)
    return true;
  if (op == aten::max_pool2d_default || op == aten::avg_pool2d_default || op == cops::maxpool2d_default ||
      op == cops::avgpool2d_default)
    return zeroPadding(node);
  return false;
}

std::optional<std::vector<const Value *>> activationInputs(const Node &node) {
  if (node.numOutputs() != 1)
    return std::nullopt;
  const OpId op = node.opId();
  if (op == aten::linear_default || isConv(node) || op == aten::relu_default || op == aten::sigmoid_default ||
      op == aten::tanh_default || op == aten::neg_default)
    return leading(node, 1);
  // RMS_NORM's gamma stays float32 (its quantized kernel reads a float gamma).
  if (op == cops::rms_norm_default) {
    const Argument *gamma = node.findArg("weight");
    const bool float_gamma = gamma == nullptr || gamma->isNone() || (gamma->isValue() && gamma->asValue()->isConstant());
    return float_gamma ? leading(node, 1) : std::nullopt;
  }
  if (op == aten::softmax_int || op == aten::_softmax_default)
    return lastDimSoftmax(node) ? leading(node, 1) : std::nullopt;
  if (op == aten::mean_dim)
    return isNoneArg(node, "dtype") ? leading(node, 1) : std::nullopt;
  if (op == aten::mul_Tensor || op == aten::mm_default || op == aten::bmm_default ||
      ((op == aten::add_Tensor || op == aten::sub_Tensor) && isNoneOr(node, "alpha", 1.0))) {
    auto inputs = leading(node, 2);
    // A constant or number operand keeps the op in float in the bundle.
    if (inputs && std::all_of(inputs->begin(), inputs->end(), [](const Value *v) { return !v->isConstant(); }))
      return inputs;
    return std::nullopt;
  }
  if (op == aten::cat_default) {
    if (node.numArgs() == 0 || node.arg(0).kind() != Argument::Kind::ValueList)
      return std::nullopt;
    std::vector<const Value *> inputs(node.arg(0).asValues().begin(), node.arg(0).asValues().end());
    if (inputs.empty() || std::any_of(inputs.begin(), inputs.end(),
                                      [](const Value *v) { return v == nullptr || v->isConstant(); }))
      return std::nullopt;
    return inputs;
  }
  return std::nullopt;
}

std::optional<WeightSite> weightOf(const Node &node) {
  const OpId op = node.opId();
  if (op == aten::linear_default || op == cops::conv2d_default || op == cops::conv2d_padding)
    return WeightSite{&node, "weight", 0};
  if (op == cops::transpose_conv_default)
    return WeightSite{&node, "weight", 0}; // OHWI: output channels first
  if (op == cops::depthwise_conv2d_default || op == cops::depthwise_conv2d_padding)
    return WeightSite{&node, "weight", 3}; // [1, H, W, C]: output channels last
  if (op == aten::embedding_default)
    return WeightSite{&node, "weight", 0};
  return std::nullopt;
}

bool alreadyQuantized(const Value &value) { return quant::isQuantized(value) || value.isQuantized(); }

Placement place(const Graph &graph, const NodeConfigs &configs, const PtqConfig &config) {
  return Placer(graph, configs, config).run();
}

} // namespace tico::ptq
