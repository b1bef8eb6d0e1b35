#include "adaround_quantizer.h"

#include <tico/support/error.h>

#include <cmath>

namespace tico::adaround_plugin {

using gptq_plugin::LayerShape;

std::vector<OptionSpec> AdaRoundSettings::specs() {
  std::vector<OptionSpec> specs = gptq_plugin::weightQuantizerSpecs();
  const std::vector<OptionSpec> own = {
      {"scale_search", OptionType::String, std::string("minmax"),
       "grid ranges before the rounding is learned: 'minmax' or 'mse' (shrunken range per channel minimising "
       "sum |w - q|^2.4)"},
      {"iterations", OptionType::Int, int64_t{1000}, "Adam steps per layer"},
      {"learning_rate", OptionType::Float, 0.01, "Adam's step size on the rounding variables"},
      {"regularization", OptionType::Float, 0.01, "weight of the term pushing every rounding to 0 or 1 (lambda)"},
      {"warmup", OptionType::Float, 0.2, "fraction of the steps before that term is switched on, in [0, 1)"},
      {"holdout_every", OptionType::Int, int64_t{4},
       "every N-th calibration batch is held out to judge the learned rounding against round-to-nearest (0: judge "
       "on the training batches)"},
  };
  specs.insert(specs.end(), own.begin(), own.end());
  return specs;
}

AdaRoundSettings AdaRoundSettings::from(const Options &o) {
  AdaRoundSettings s;
  s.common = gptq_plugin::weightQuantizerSettings(o, "adaround");
  s.grid.bits = s.common.bits;
  s.grid.symmetric = s.common.symmetric;
  s.grid.per_channel = s.common.per_channel;
  const std::string &search = o.getString("scale_search");
  if (search != "minmax" && search != "mse")
    throw Error("adaround: scale_search must be 'minmax' or 'mse', got '" + search + "'");
  s.grid.mse = search == "mse";
  const int64_t iterations = o.getInt("iterations");
  if (iterations < 0 || iterations > 1000000)
    throw Error("adaround: iterations must be in [0, 1000000], got " + std::to_string(iterations));
  s.solver.iterations = static_cast<int>(iterations);
  s.solver.learning_rate = static_cast<float>(o.getFloat("learning_rate"));
  if (!(s.solver.learning_rate > 0.0f))
    throw Error("adaround: learning_rate must be positive");
  s.solver.regularization = o.getFloat("regularization");
  if (!(s.solver.regularization >= 0.0))
    throw Error("adaround: regularization must be >= 0");
  s.solver.warmup = o.getFloat("warmup");
  if (!(s.solver.warmup >= 0.0 && s.solver.warmup < 1.0))
    throw Error("adaround: warmup must be in [0, 1)");
  const int64_t holdout = o.getInt("holdout_every");
  if (holdout < 0 || holdout == 1)
    throw Error("adaround: holdout_every must be 0 (none) or at least 2 (1 would hold out every batch), got " +
                std::to_string(holdout));
  s.holdout_every = static_cast<int>(holdout);
  return s;
}

bool AdaRoundQuantizer::heldOut(std::size_t batch, std::size_t batch_count) const {
  // With a single batch there is nothing to hold out: it trains, and it judges.
  const auto every = static_cast<std::size_t>(settings_.holdout_every);
  return every > 0 && batch_count >= 2 && batch % every == every - 1;
}

void AdaRoundQuantizer::prepare(const Graph &graph, CalibrationPlan &plan, QuantizeContext &) {
  layers_ = gptq_plugin::planLayers(graph, settings_.common.selection, plan);
  for (std::size_t i = 0; i < layers_.size(); ++i)
    by_node_[layers_[i].node] = i;
  for (gptq_plugin::QuantizedLayer &layer : layers_) {
    const std::string key = gptq_plugin::geometryKey(layer.shape);
    InputStats &stats = inputs_[{layer.input, key}];
    if (!stats.train) {
      stats.train = std::make_unique<gptq::HessianAccumulator>(layer.shape.columns);
      stats.holdout = std::make_unique<gptq::HessianAccumulator>(layer.shape.columns);
      stats.shape = &layer.shape;
      keys_of_value_[layer.input].push_back(key);
    }
    ++stats.pending_layers;
  }
}

void AdaRoundQuantizer::observe(const Observation &o) {
  auto keys = keys_of_value_.find(&o.value);
  if (keys == keys_of_value_.end())
    return;
  const bool held_out = heldOut(o.batch, o.batch_count);
  for (const std::string &key : keys->second) {
    InputStats &stats = inputs_.at({&o.value, key});
    if (stats.train)
      gptq_plugin::accumulate(held_out ? *stats.holdout : *stats.train, o.data, *stats.shape,
                              settings_.common.bias_correction ? &stats.means : nullptr);
  }
}

std::vector<ConstantOverride> AdaRoundQuantizer::layer(const Node &node, QuantizeContext &context) {
  gptq_plugin::QuantizedLayer &layer = layers_.at(by_node_.at(node.name()));
  InputStats &stats = inputs_.at({layer.input, gptq_plugin::geometryKey(layer.shape)});
  const Eigen::MatrixXf W = gptq_plugin::weightMatrix(*node.input(1)->constant(), layer.shape);
  const Eigen::MatrixXd H = stats.train->hessian();
  const bool has_holdout = stats.holdout->sampleRows() > 0;
  const Eigen::MatrixXd H_holdout = has_holdout ? stats.holdout->hessian() : Eigen::MatrixXd();
  const Eigen::MatrixXd &H_judge = has_holdout ? H_holdout : H;

  gptq::AdaRoundOptions options = settings_.solver;
  options.label = "layer '" + node.name() + "'";
  gptq::Grid grid;
  gptq::AdaRoundResult result;
  try {
    grid = gptq::fitGrid(W, settings_.grid);
    if (stats.train->sampleRows() == 0)
      throw std::invalid_argument("no calibration batch reached its training Hessian");
    result = gptq::adaround(W, grid, H, static_cast<double>(stats.train->sampleRows()), options);
    layer.circle = gptq::toCircle(std::vector<gptq::Grid>{grid}, -1, settings_.common.signed_storage);
  } catch (const std::exception &e) {
    throw Error("adaround: node '" + node.name() + "': " + e.what());
  }
  const gptq::CodeMatrix nearest = gptq::quantizeRtn(W, grid);
  const Eigen::MatrixXf nearest_values = gptq::dequantize(nearest, grid);
  // Accept or roll back on batches the optimisation did not see.
  const double learned_error = gptq::layerError(W, result.dequantized, H_judge);
  const double nearest_error = gptq::layerError(W, nearest_values, H_judge);
  const bool accepted = learned_error < nearest_error;
  const gptq::CodeMatrix &codes = accepted ? result.codes : nearest;
  const Eigen::MatrixXf &values = accepted ? result.dequantized : nearest_values;
  layer.codes = gptq_plugin::codeBytes(codes, layer.circle, layer.shape);
  layer.done = true;
  if (settings_.common.bias_correction)
    context.report(node.name(), "bias_correction_max_shift",
                   gptq_plugin::setBiasShift(layer, W, values, stats.means));
  context.report(node.name(), "adaround_train_error", result.final_error);
  context.report(node.name(), "rtn_train_error", result.initial_error);
  context.report(node.name(), has_holdout ? "adaround_holdout_error" : "adaround_judged_error", learned_error);
  context.report(node.name(), has_holdout ? "rtn_holdout_error" : "rtn_judged_error", nearest_error);
  context.report(node.name(), "error_ratio", nearest_error > 0.0 ? learned_error / nearest_error : 0.0);
  context.report(node.name(), "adaround_accepted", accepted ? 1.0 : 0.0);
  context.report(node.name(), "adaround_flipped", static_cast<double>(result.flipped));
  if (--stats.pending_layers == 0) {
    stats.train.reset();
    stats.holdout.reset();
  }
  if (!settings_.common.inputs_from_quantized)
    return {};
  return {gptq_plugin::weightOverride(node, values, layer.shape)};
}

bool AdaRoundQuantizer::convert(Graph &graph, QuantizeContext &) {
  return gptq_plugin::writeQuantizedLayers(graph, layers_, "adaround");
}

} // namespace tico::adaround_plugin
