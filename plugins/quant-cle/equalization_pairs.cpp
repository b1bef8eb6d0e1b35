#include "equalization_pairs.h"

#include <tico/ops/circle_ops.h>
#include <tico/ops/torch_ops.h>

#include <algorithm>

namespace tico::cle {
namespace {

namespace aten = ops::aten;
namespace circle = ops::circle;

bool floatConstant(const Value *v) { return v != nullptr && v->isConstant() && v->dtype() == DType::Float32; }

const Value *optionalValue(const Node &node, std::string_view name) {
  const Argument *arg = node.findArg(name);
  return arg != nullptr && arg->isValue() ? arg->asValue() : nullptr;
}

bool biasUsable(const Node &node) {
  const Argument *bias = node.findArg("bias");
  return bias == nullptr || bias->isNone() || floatConstant(bias->asValue());
}

// The node's distinct readers of `v` and how many times the node reads it.
bool singleReader(const Graph &graph, const Value &v, const Node *&reader, std::string &why) {
  if (graph.isGraphOutput(&v)) {
    why = "'" + v.name() + "' is a graph output";
    return false;
  }
  const std::vector<Node *> &users = v.users();
  if (users.empty()) {
    why = "'" + v.name() + "' is not read";
    return false;
  }
  if (std::any_of(users.begin(), users.end(), [&](const Node *u) { return u != users.front(); })) {
    why = "'" + v.name() + "' is read by more than one operator";
    return false;
  }
  reader = users.front();
  std::size_t reads = 0;
  for (std::size_t i = 0; i < reader->numArgs(); ++i) {
    const Argument &arg = reader->arg(i);
    if (arg.isValue())
      reads += arg.asValue() == &v ? 1 : 0;
    else if (arg.kind() == Argument::Kind::ValueList || arg.kind() == Argument::Kind::OptionalValueList)
      reads += static_cast<std::size_t>(std::count(arg.asValues().begin(), arg.asValues().end(), &v));
  }
  if (reads != 1) {
    why = "'" + v.name() + "' is read more than once by " + reader->name();
    return false;
  }
  return true;
}

// A constant an add/sub can carry divided by s: it varies along the activation's channel axis at
// most (sizes aligned from the right, all 1 but possibly the channel's).
bool channelOnlyConstant(const Value *c, int64_t rank, int64_t axis, int64_t channels) {
  if (!floatConstant(c))
    return false;
  const std::vector<int64_t> &sizes = c->constant()->sizes;
  if (static_cast<int64_t>(sizes.size()) > rank)
    return false;
  const int64_t offset = rank - static_cast<int64_t>(sizes.size());
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    const int64_t dim = offset + static_cast<int64_t>(d);
    if (sizes[d] != 1 && !(dim == axis && sizes[d] == channels))
      return false;
  }
  return true;
}

bool isOneOrAbsent(const Node &node, std::string_view name) {
  const Argument *alpha = node.findArg(name);
  return alpha == nullptr || alpha->isNone() || (alpha->isNumber() && alpha->asDouble() == 1.0);
}

} // namespace

bool layerForm(const Node &node, LayerForm &form) {
  if (node.numArgs() < 2 || !node.arg(1).isValue() || !floatConstant(node.input(1)) || !biasUsable(node) ||
      node.numOutputs() != 1)
    return false;
  const std::vector<int64_t> &w = node.input(1)->constant()->sizes;
  const Value *x = node.arg(0).isValue() ? node.input(0) : nullptr;
  if (x == nullptr || x->dtype() != DType::Float32)
    return false;
  if (node.opId() == aten::linear_default) {
    if (w.size() != 2 || x->rank() < 1)
      return false;
    form = {LayerForm::Kind::Linear, 0, 1, x->rank() - 1, w[0], w[1]};
    return true;
  }
  if (w.size() != 4 || x->rank() != 4)
    return false;
  if (node.opId() == circle::conv2d_default || node.opId() == circle::conv2d_padding) {
    form = {LayerForm::Kind::ConvNhwc, 0, 3, 3, w[0], w[3]};
    return true;
  }
  if (node.opId() == circle::depthwise_conv2d_default || node.opId() == circle::depthwise_conv2d_padding) {
    // A depth multiplier of 1 only: then channel c's filter reads channel c alone.
    if (w[0] != 1 || !x->shape()[3].isStatic() || x->shape()[3].value() != w[3])
      return false;
    form = {LayerForm::Kind::DepthwiseNhwc, 3, 3, 3, w[3], w[3]};
    return true;
  }
  if (node.opId() == aten::conv2d_default) {
    const Argument *groups_arg = node.findArg("groups");
    const int64_t groups = groups_arg != nullptr && groups_arg->isInt() ? groups_arg->asInt() : 1;
    if (groups == 1) {
      form = {LayerForm::Kind::ConvNchw, 0, 1, 1, w[0], w[1]};
      return true;
    }
    if (w[1] == 1 && w[0] == groups) {
      form = {LayerForm::Kind::DepthwiseNchw, 0, 0, 1, w[0], w[0]};
      return true;
    }
  }
  return false;
}

Walk walkFrom(const Graph &graph, const Node &first, const LayerForm &form, bool relu6_as_relu) {
  Walk walk;
  const Value *v = first.output(0);
  int64_t axis = form.activation_axis;
  const int64_t channels = form.out_channels;
  for (;;) {
    const Node *reader = nullptr;
    if (!singleReader(graph, *v, reader, walk.stop))
      return walk;
    const int64_t rank = v->rank();
    LayerForm second_form;
    if (reader->arg(0).isValue() && reader->input(0) == v && layerForm(*reader, second_form)) {
      if (second_form.activation_axis != axis || second_form.in_channels != channels) {
        walk.stop = reader->name() + " reads the channels on another axis or count";
        return walk;
      }
      walk.second = reader;
      walk.second_form = second_form;
      return walk;
    }
    PathStep step;
    step.node = reader;
    step.channel_axis = axis;
    step.rank = rank;
    const OpId op = reader->opId();
    if ((op == aten::permute_default || op == aten::pad_default) && !reader->arg(1).isIntList()) {
      walk.stop = reader->name() + ": dims or pads that are not numbers";
      return walk;
    }
    if (op == aten::permute_default) {
      std::vector<int64_t> dims = reader->arg(1).asInts();
      for (int64_t &d : dims)
        d = d < 0 ? d + rank : d;
      const auto at = std::find(dims.begin(), dims.end(), axis);
      if (at == dims.end()) {
        walk.stop = reader->name() + ": a permute that drops the channel axis";
        return walk;
      }
      step.kind = PathStep::Kind::Permute;
      axis = at - dims.begin();
    } else if (op == aten::pad_default) {
      // Zeros stay zeros under any scale; the channel axis must not be padded.
      const Argument *mode = reader->findArg("mode");
      const Argument *value = reader->findArg("value");
      const std::vector<int64_t> &pads = reader->arg(1).asInts();
      const bool constant_mode = mode == nullptr || mode->isNone() ||
                                 (mode->kind() == Argument::Kind::String && mode->asString() == "constant");
      const bool zero = value == nullptr || value->isNone() || (value->isNumber() && value->asDouble() == 0.0);
      if (!constant_mode || !zero || axis >= rank - static_cast<int64_t>(pads.size() / 2)) {
        walk.stop = reader->name() + ": a pad with a non-zero value, another mode, or over the channel axis";
        return walk;
      }
      step.kind = PathStep::Kind::Pad;
    } else if (op == aten::relu_default) {
      step.kind = PathStep::Kind::Relu;
    } else if (op == aten::relu6_default) {
      if (!relu6_as_relu) {
        walk.stop = reader->name() + ": relu6 does not commute with a per-channel scale (relu6: skip)";
        return walk;
      }
      step.kind = PathStep::Kind::Relu6;
    } else if (op == aten::mul_Tensor || op == aten::mul_Scalar) {
      // Any elementwise factor commutes with a per-channel scale; a constant one keeps the
      // path free of other activations.
      step.constant_arg = reader->input(0) == v ? "other" : "self";
      const Argument &other = reader->arg(step.constant_arg);
      if (!(other.isNumber() || (other.isValue() && floatConstant(other.asValue())))) {
        walk.stop = reader->name() + ": a mul by a computed value";
        return walk;
      }
      step.kind = PathStep::Kind::Mul;
      step.channel_only = other.isNumber() || channelOnlyConstant(other.asValue(), rank, axis, channels);
    } else if (op == aten::add_Tensor || op == aten::sub_Tensor) {
      const bool v_first = reader->arg(0).isValue() && reader->input(0) == v;
      step.constant_arg = v_first ? "other" : "self";
      step.subtract = op == aten::sub_Tensor;
      const Argument &other = reader->arg(step.constant_arg);
      if (!v_first && step.subtract) {
        walk.stop = reader->name() + ": a constant minus the activation";
        return walk;
      }
      if (!isOneOrAbsent(*reader, "alpha") || !other.isValue() ||
          !channelOnlyConstant(other.asValue(), rank, axis, channels)) {
        walk.stop = reader->name() + ": an add/sub of something other than a per-channel constant";
        return walk;
      }
      step.kind = PathStep::Kind::AddConstant;
    } else {
      walk.stop = reader->name() + " (" + reader->op().str() + ") does not commute with a per-channel scale";
      return walk;
    }
    walk.path.push_back(step);
    v = reader->output(0);
  }
}

std::vector<EqualizationPair> findEqualizationPairs(const Graph &graph, bool relu6_as_relu,
                                                    std::vector<std::string> &stopped) {
  std::vector<EqualizationPair> pairs;
  for (const auto &owned : graph.nodes()) {
    const Node &first = *owned;
    EqualizationPair pair;
    if (!layerForm(first, pair.first_form))
      continue;
    Walk walk = walkFrom(graph, first, pair.first_form, relu6_as_relu);
    if (walk.second == nullptr) {
      stopped.push_back(first.name() + ": " + walk.stop);
      continue;
    }
    pair.first = &first;
    pair.second = walk.second;
    pair.second_form = walk.second_form;
    pair.path = std::move(walk.path);
    pair.channels = pair.first_form.out_channels;
    pairs.push_back(std::move(pair));
  }
  return pairs;
}

} // namespace tico::cle
