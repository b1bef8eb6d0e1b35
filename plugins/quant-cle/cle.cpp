#include "cle.h"

#include "layers.h"

#include <tico/rewrite/builder.h>
#include <tico/support/error.h>
#include <tico/support/log.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace tico::cle {
namespace {

using gptq_plugin::floatsOf;

// A layer's weight and bias while the pairs are balanced.
struct WorkingLayer {
  std::vector<int64_t> sizes;
  std::vector<float> weight;
  std::vector<float> bias; // empty without one
  std::vector<int64_t> bias_sizes;
  bool changed = false;
};

int64_t innerSize(const std::vector<int64_t> &sizes, int64_t axis) {
  int64_t inner = 1;
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < sizes.size(); ++d)
    inner *= sizes[d];
  return inner;
}

std::vector<double> channelAbsMax(const WorkingLayer &layer, int64_t axis) {
  const int64_t channels = layer.sizes[static_cast<std::size_t>(axis)], inner = innerSize(layer.sizes, axis);
  std::vector<double> r(static_cast<std::size_t>(channels), 0.0);
  for (std::size_t e = 0; e < layer.weight.size(); ++e) {
    const auto c = static_cast<std::size_t>((static_cast<int64_t>(e) / inner) % channels);
    r[c] = std::max(r[c], static_cast<double>(std::fabs(layer.weight[e])));
  }
  return r;
}

void scaleChannels(std::vector<float> &values, const std::vector<int64_t> &sizes, int64_t axis,
                   const std::vector<double> &factor) {
  const int64_t channels = sizes[static_cast<std::size_t>(axis)], inner = innerSize(sizes, axis);
  for (std::size_t e = 0; e < values.size(); ++e)
    values[e] = static_cast<float>(values[e] * factor[static_cast<std::size_t>((static_cast<int64_t>(e) / inner) % channels)]);
}

// The largest per-channel range over the median one: how much precision a grid shared by all
// channels (per-tensor weights) leaves the typical channel.
double spread(std::vector<double> ranges) {
  if (ranges.empty())
    return 1.0;
  const double hi = *std::max_element(ranges.begin(), ranges.end());
  std::nth_element(ranges.begin(), ranges.begin() + static_cast<std::ptrdiff_t>(ranges.size() / 2), ranges.end());
  const double median = ranges[ranges.size() / 2];
  return median > 0.0 ? hi / median : std::numeric_limits<double>::infinity();
}

WorkingLayer load(const Node &node) {
  WorkingLayer layer;
  const TensorData &w = *node.input(1)->constant();
  layer.sizes = w.sizes;
  layer.weight = floatsOf(w);
  const Argument *bias = node.findArg("bias");
  if (bias != nullptr && bias->isValue())
  {
    layer.bias = floatsOf(*bias->asValue()->constant());
    layer.bias_sizes = bias->asValue()->constant()->sizes;
  }
  return layer;
}

Value *replaceConstant(Graph &graph, Node &node, Value *old, std::vector<int64_t> sizes, const std::vector<float> &values) {
  Value *fresh = graph.addConstant(old->name() + "_equalized",
                                   std::make_shared<TensorData>(TensorData::fromVector(DType::Float32, std::move(sizes), values)));
  node.replaceInput(old, fresh);
  return fresh;
}

Node &nodeNamed(Graph &graph, const std::string &name) {
  Node *node = graph.findNode(name);
  if (node == nullptr)
    throw Error("cle: node '" + name + "' is gone before convert");
  return *node;
}

// The add/sub constant of `step` divided by the path's scales, its channel dimension spelled out
// (a [C, 1, ..., 1] tail aligned with the activation when it was a scalar).
void rescaleConstant(Graph &graph, const PathStep &step, const std::vector<double> &total) {
  Node &node = nodeNamed(graph, step.node->name());
  Value *old = node.input(step.constant_arg);
  const std::vector<float> values = floatsOf(*old->constant());
  std::vector<int64_t> sizes = old->constant()->sizes;
  const int64_t channels = static_cast<int64_t>(total.size());
  const int64_t tail = step.rank - step.channel_axis; // dims from the channel axis to the end
  while (static_cast<int64_t>(sizes.size()) < tail)
    sizes.insert(sizes.begin(), 1);
  const std::size_t channel_dim = sizes.size() - static_cast<std::size_t>(tail);
  const bool broadcast = sizes[channel_dim] == 1;
  sizes[channel_dim] = channels;
  std::vector<float> out(static_cast<std::size_t>(channels));
  for (int64_t c = 0; c < channels; ++c)
    out[static_cast<std::size_t>(c)] =
        static_cast<float>((broadcast ? values.at(0) : values.at(static_cast<std::size_t>(c))) / total[static_cast<std::size_t>(c)]);
  replaceConstant(graph, node, old, sizes, out);
}

void relu6ToRelu(Graph &graph, const PathStep &step) {
  Node &node = nodeNamed(graph, step.node->name());
  Value *out = node.output(0);
  rewrite::Builder b(graph, &node, node.name());
  Value *relu = b.value(OpKey("aten", "relu", "default"), {Argument::value(node.input(0))}, out->dtype(),
                        out->shape(), "_relu");
  graph.replaceAllUsesWith(out, relu);
  graph.eraseNode(&node);
}

// Folds the leading run of channel-only muls and adds/subs after each layer into the layer's
// weight and bias (y -> y m + a per channel), bypassing those operators. Returns how many layers.
std::size_t foldScaleShift(Graph &graph, QuantizeContext &context, const std::vector<std::string> &exclude) {
  std::vector<std::pair<std::string, std::vector<PathStep>>> folds;
  for (const auto &owned : graph.nodes()) {
    LayerForm form;
    if (!layerForm(*owned, form) || gptq_plugin::globMatch(exclude, owned->name()))
      continue;
    Walk walk = walkFrom(graph, *owned, form, /*relu6_as_relu=*/false);
    std::vector<PathStep> lead;
    for (const PathStep &step : walk.path) {
      const bool foldable = step.kind == PathStep::Kind::AddConstant ||
                            (step.kind == PathStep::Kind::Mul && step.channel_only);
      if (!foldable && step.kind != PathStep::Kind::Permute)
        break;
      lead.push_back(step);
    }
    while (!lead.empty() && lead.back().kind == PathStep::Kind::Permute)
      lead.pop_back();
    if (lead.empty())
      continue;
    const Argument *bias = owned->findArg("bias");
    const bool has_shift = std::any_of(lead.begin(), lead.end(), [](const PathStep &s) { return s.kind == PathStep::Kind::AddConstant; });
    if (has_shift && bias == nullptr)
      continue; // nowhere to put the shift
    folds.emplace_back(owned->name(), std::move(lead));
  }
  for (auto &[name, lead] : folds) {
    Node &node = nodeNamed(graph, name);
    LayerForm form;
    layerForm(node, form);
    WorkingLayer layer = load(node);
    const auto channels = static_cast<std::size_t>(form.out_channels);
    std::vector<double> scale(channels, 1.0), shift(channels, 0.0);
    for (const PathStep &step : lead) {
      if (step.kind == PathStep::Kind::Permute)
        continue;
      Node &op = nodeNamed(graph, step.node->name());
      const Argument &arg = op.arg(step.constant_arg);
      std::vector<float> values = arg.isNumber() ? std::vector<float>{static_cast<float>(arg.asDouble())}
                                                 : floatsOf(*arg.asValue()->constant());
      for (std::size_t c = 0; c < channels; ++c) {
        const double k = values.size() == 1 ? values[0] : values[c];
        if (step.kind == PathStep::Kind::Mul) {
          scale[c] *= k;
          shift[c] *= k;
        } else {
          shift[c] += step.subtract ? -k : k;
        }
      }
      // The operator is bypassed: its readers read its activation input.
      Value *through = op.input(step.constant_arg == "other" ? "self" : "other");
      graph.replaceAllUsesWith(op.output(0), through);
      graph.eraseNode(&op);
    }
    scaleChannels(layer.weight, layer.sizes, form.output_axis, scale);
    if (layer.bias.empty()) {
      layer.bias.assign(channels, 0.0f);
      layer.bias_sizes = {form.out_channels};
    }
    for (std::size_t c = 0; c < channels; ++c)
      layer.bias[c] = static_cast<float>(layer.bias[c] * scale[c] + shift[c]);
    replaceConstant(graph, node, node.input(1), layer.sizes, layer.weight);
    const Argument *bias = node.findArg("bias");
    if (bias->isValue())
      replaceConstant(graph, node, bias->asValue(), layer.bias_sizes, layer.bias);
    else
      node.setArg("bias", Argument::value(graph.addConstant(
                              name + "_folded_bias", std::make_shared<TensorData>(TensorData::fromVector(
                                                         DType::Float32, layer.bias_sizes, layer.bias)))));
    context.report(name, "cle_folded_operators",
                   static_cast<double>(std::count_if(lead.begin(), lead.end(), [](const PathStep &s) {
                     return s.kind != PathStep::Kind::Permute;
                   })));
  }
  return folds.size();
}

} // namespace

std::vector<OptionSpec> Settings::specs() {
  return {
      {"fold", OptionType::Bool, true,
       "first fold the per-channel mul and add/sub right after a layer (inference batch norm) into its weight and "
       "bias"},
      {"equalize", OptionType::Bool, true, "balance the per-channel ranges of adjacent layers (after folding)"},
      {"relu6", OptionType::String, std::string("skip"),
       "a relu6 between two layers: 'skip' leaves such pairs alone (the float function is kept); 'relu' equalizes "
       "through it and makes it a relu, as the data-free quantization paper does (the function changes wherever an "
       "activation exceeded 6)"},
      {"max_iterations", OptionType::Int, int64_t{100},
       "passes over the pairs until no scale moves by more than 0.1 % (layers in two pairs need several)"},
      {"max_scale", OptionType::Float, 1e4, "each scale is clamped to [1 / max_scale, max_scale]"},
      {"exclude", OptionType::StringList, std::vector<std::string>{},
       "layer node-name globs: a pair holding one of them is left alone"},
  };
}

Settings Settings::from(const Options &o) {
  Settings s;
  const std::string &relu6 = o.getString("relu6");
  if (relu6 != "relu" && relu6 != "skip")
    throw Error("cle: relu6 must be 'relu' or 'skip', got '" + relu6 + "'");
  s.relu6_as_relu = relu6 == "relu";
  const int64_t iterations = o.getInt("max_iterations");
  if (iterations < 1 || iterations > 1000)
    throw Error("cle: max_iterations must be in [1, 1000], got " + std::to_string(iterations));
  s.max_iterations = static_cast<int>(iterations);
  s.max_scale = o.getFloat("max_scale");
  if (!(s.max_scale >= 1.0))
    throw Error("cle: max_scale must be at least 1, got " + std::to_string(s.max_scale));
  s.exclude = o.getStringList("exclude");
  s.fold = o.getBool("fold");
  s.equalize = o.getBool("equalize");
  return s;
}

void CrossLayerEqualization::prepare(const Graph &, CalibrationPlan &, QuantizeContext &) {
  // Data-free: nothing to observe.
}

bool CrossLayerEqualization::convert(Graph &graph, QuantizeContext &context) {
  const std::size_t folded = settings_.fold ? foldScaleShift(graph, context, settings_.exclude) : 0;
  if (folded > 0) {
    TICO_INFO << "cle: the per-channel scale / shift after " << folded << " layers folded into them";
  }
  if (!settings_.equalize) {
    graph.removeUnusedConstants();
    return folded > 0;
  }
  std::vector<std::string> stopped;
  std::vector<EqualizationPair> pairs = findEqualizationPairs(graph, settings_.relu6_as_relu, stopped);
  for (const std::string &line : stopped)
    TICO_DEBUG << "cle: no pair from " << line;
  std::erase_if(pairs, [&](const EqualizationPair &p) {
    return gptq_plugin::globMatch(settings_.exclude, p.first->name()) ||
           gptq_plugin::globMatch(settings_.exclude, p.second->name());
  });
  if (pairs.empty()) {
    TICO_INFO << "cle: no layer pair to equalize";
    graph.removeUnusedConstants();
    return folded > 0;
  }
  std::map<std::string, WorkingLayer> layers;
  std::map<std::string, double> spread_before;
  for (const EqualizationPair &p : pairs)
    for (const Node *n : {p.first, p.second})
      if (!layers.count(n->name()))
        layers.emplace(n->name(), load(*n));
  for (const EqualizationPair &p : pairs)
    spread_before[p.first->name()] = spread(channelAbsMax(layers.at(p.first->name()), p.first_form.output_axis));

  // Balance, pair after pair, until nothing moves; `total` is what each pair's path constants are
  // divided by in the end.
  std::vector<std::vector<double>> total(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i)
    total[i].assign(static_cast<std::size_t>(pairs[i].channels), 1.0);
  int iterations = 0;
  for (; iterations < settings_.max_iterations; ++iterations) {
    double moved = 0.0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const EqualizationPair &p = pairs[i];
      WorkingLayer &a = layers.at(p.first->name());
      WorkingLayer &b = layers.at(p.second->name());
      const std::vector<double> r1 = channelAbsMax(a, p.first_form.output_axis);
      const std::vector<double> r2 = channelAbsMax(b, p.second_form.input_axis);
      std::vector<double> s(r1.size(), 1.0), inverse(r1.size(), 1.0);
      for (std::size_t c = 0; c < s.size(); ++c) {
        // The pair's accumulated scale stays within [1 / max_scale, max_scale] (a dead channel
        // would otherwise be pushed further on every pass).
        if (r1[c] > 0.0 && r2[c] > 0.0) {
          const double wanted = std::clamp(total[i][c] * std::sqrt(r1[c] / r2[c]), 1.0 / settings_.max_scale,
                                           settings_.max_scale);
          s[c] = wanted / total[i][c];
        }
        inverse[c] = 1.0 / s[c];
        total[i][c] *= s[c];
        moved = std::max(moved, std::fabs(std::log(s[c])));
      }
      scaleChannels(a.weight, a.sizes, p.first_form.output_axis, inverse);
      if (!a.bias.empty())
        scaleChannels(a.bias, {static_cast<int64_t>(a.bias.size())}, 0, inverse);
      scaleChannels(b.weight, b.sizes, p.second_form.input_axis, s);
      a.changed = b.changed = true;
    }
    if (moved < 1e-3) {
      ++iterations;
      break;
    }
  }

  std::size_t relu6_replaced = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const EqualizationPair &p = pairs[i];
    const double min_scale = *std::min_element(total[i].begin(), total[i].end());
    const double max_scale = *std::max_element(total[i].begin(), total[i].end());
    context.report(p.first->name(), "cle_min_scale", min_scale);
    context.report(p.first->name(), "cle_max_scale", max_scale);
    context.report(p.first->name(), "cle_range_spread_before", spread_before.at(p.first->name()));
    context.report(p.first->name(), "cle_range_spread_after",
                   spread(channelAbsMax(layers.at(p.first->name()), p.first_form.output_axis)));
    // The path's constants and clips, in the activation's rank at each step.
    for (const PathStep &step : p.path) {
      if (step.kind == PathStep::Kind::AddConstant)
        rescaleConstant(graph, step, total[i]);
      else if (step.kind == PathStep::Kind::Relu6) {
        relu6ToRelu(graph, step);
        ++relu6_replaced;
      }
    }
  }
  for (auto &[name, layer] : layers) {
    if (!layer.changed)
      continue;
    Node &node = nodeNamed(graph, name);
    replaceConstant(graph, node, node.input(1), layer.sizes, layer.weight);
    const Argument *bias = node.findArg("bias");
    if (bias != nullptr && bias->isValue())
      replaceConstant(graph, node, bias->asValue(), layer.bias_sizes, layer.bias);
  }
  graph.removeUnusedConstants();
  TICO_INFO << "cle: " << pairs.size() << " layer pairs equalized in " << iterations << " pass(es)"
            << (relu6_replaced ? ", " + std::to_string(relu6_replaced) + " relu6 made relu" : std::string());
  return true;
}

} // namespace tico::cle
