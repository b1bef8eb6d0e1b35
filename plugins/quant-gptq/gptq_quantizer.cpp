#include "gptq_quantizer.h"

#include <tico/support/error.h>
#include <tico/support/log.h>

#include <cmath>
#include <stdexcept>

namespace tico::gptq_plugin {

std::vector<OptionSpec> GptqSettings::specs() {
  std::vector<OptionSpec> specs = weightQuantizerSpecs();
  const std::vector<OptionSpec> own = {
      {"mse", OptionType::Bool, false, "the same as scale_search: mse (kept for existing recipes)"},
      {"scale_search", OptionType::String, std::string("minmax"),
       "grid ranges: 'minmax'; 'mse' (shrunken range per channel minimising sum |w - q|^2.4); 'smse' (the same "
       "minimising sum H_jj (w - q)^2, each input's error weighted by its energy on the calibration data)"},
      {"percdamp", OptionType::Float, 0.01, "dampening added to diag(H), relative to its mean, in (0, 1]"},
      {"damping_retries", OptionType::Int, int64_t{4},
       "times the dampening is raised tenfold when the Hessian is not positive definite (0: fail at once)"},
      {"block_size", OptionType::Int, int64_t{128}, "columns per lazy update block (speed only)"},
      {"act_order", OptionType::Bool, true, "quantize columns by decreasing diag(H), as the original"},
      {"group_size", OptionType::Int, int64_t{-1},
       "-1: one grid per output channel; > 0: per output channel and group of this many input columns (linear layers; written as DEQUANTIZE, RESHAPE, SUB, MUL)"},
      {"static_groups", OptionType::Bool, false, "fit every group grid on the original weights first"},
  };
  specs.insert(specs.end(), own.begin(), own.end());
  return specs;
}

GptqSettings GptqSettings::from(const Options &o) {
  GptqSettings s;
  s.common = weightQuantizerSettings(o, "gptq");
  s.solver.grid.bits = s.common.bits;
  s.solver.grid.symmetric = s.common.symmetric;
  s.solver.grid.per_channel = s.common.per_channel;
  const std::string &search = o.getString("scale_search");
  if (search != "minmax" && search != "mse" && search != "smse")
    throw Error("gptq: scale_search must be 'minmax', 'mse' or 'smse', got '" + search + "'");
  if (o.getBool("mse") && search == "smse")
    throw Error("gptq: mse: true and scale_search: smse contradict each other; use scale_search alone");
  s.solver.grid.mse = o.getBool("mse") || search != "minmax";
  s.solver.sensitivity_weighted = search == "smse";
  const int64_t retries = o.getInt("damping_retries");
  if (retries < 0 || retries > 16)
    throw Error("gptq: damping_retries must be in [0, 16], got " + std::to_string(retries));
  s.solver.damping_retries = static_cast<int>(retries);
  s.solver.percdamp = o.getFloat("percdamp");
  if (!(s.solver.percdamp > 0.0 && s.solver.percdamp <= 1.0))
    throw Error("gptq: percdamp must be in (0, 1], got " + std::to_string(s.solver.percdamp));
  const int64_t block = o.getInt("block_size");
  if (block < 1)
    throw Error("gptq: block_size must be at least 1, got " + std::to_string(block));
  s.solver.block_size = static_cast<int>(block);
  s.solver.act_order = o.getBool("act_order");
  const int64_t group = o.getInt("group_size");
  if (group == 0 || group < -1)
    throw Error("gptq: group_size must be -1 or positive, got " + std::to_string(group));
  s.solver.group_size = static_cast<int>(group);
  s.solver.static_groups = o.getBool("static_groups");
  // act_order visits columns by decreasing Hessian diagonal, so dynamic groups would gather
  // scattered columns; a file stores blocks of consecutive columns. Said before calibration.
  if (group > 0 && s.solver.act_order && !s.solver.static_groups)
    throw Error("gptq: group_size " + std::to_string(group) +
                " with act_order needs static_groups: true (groups of consecutive columns, fitted on the "
                "original weights) or act_order: false");
  return s;
}

void GptqQuantizer::prepare(const Graph &graph, CalibrationPlan &plan, QuantizeContext &) {
  layers_ = planLayers(graph, settings_.common.selection, plan);
  for (std::size_t i = 0; i < layers_.size(); ++i)
    by_node_[layers_[i].node] = i;
  // Hessians keyed by (input, geometry), created now so observe() only looks them up.
  for (QuantizedLayer &layer : layers_) {
    const std::string key = geometryKey(layer.shape);
    InputStats &stats = inputs_[{layer.input, key}];
    if (!stats.hessian) {
      stats.hessian = std::make_unique<gptq::HessianAccumulator>(layer.shape.columns);
      stats.shape = &layer.shape;
      keys_of_value_[layer.input].push_back(key);
    }
    ++stats.pending_layers;
  }
}

void GptqQuantizer::observe(const Observation &o) {
  auto keys = keys_of_value_.find(&o.value);
  if (keys == keys_of_value_.end())
    return;
  for (const std::string &key : keys->second) {
    InputStats &stats = inputs_.at({&o.value, key});
    if (stats.hessian)
      accumulate(*stats.hessian, o.data, *stats.shape, settings_.common.bias_correction ? &stats.means : nullptr);
  }
}

std::vector<ConstantOverride> GptqQuantizer::layer(const Node &node, QuantizeContext &context) {
  QuantizedLayer &layer = layers_.at(by_node_.at(node.name()));
  InputStats &stats = inputs_.at({layer.input, geometryKey(layer.shape)});
  const Eigen::MatrixXf W = weightMatrix(*node.input(1)->constant(), layer.shape);
  const Eigen::MatrixXd H = stats.hessian->hessian();
  gptq::Options options = settings_.solver;
  options.label = "layer '" + node.name() + "'";
  gptq::Result result;
  try {
    result = gptq::quantize(W, H, options);
    layer.circle = gptq::toCircle(result, settings_.common.signed_storage);
  } catch (const std::exception &e) {
    throw Error("gptq: node '" + node.name() + "': " + e.what());
  }
  // Groups are written as blocks of consecutive input columns of an [out, in] weight; a
  // convolution's weight in the file (OHWI) does not keep the solver's feature order, so its
  // groups would not be contiguous there.
  if (layer.circle.group_size > 0 && layer.shape.kind != LayerShape::Kind::Linear)
    throw Error("gptq: node '" + node.name() + "': group_size " + std::to_string(layer.circle.group_size) +
                " applies to linear layers only (a convolution's groups are not contiguous in its stored "
                "weight); use group_size: -1 for convolutions (an override per node)");
  layer.codes = codeBytes(result.codes, layer.circle, layer.shape);
  layer.done = true;
  if (settings_.common.bias_correction)
    context.report(node.name(), "bias_correction_max_shift", setBiasShift(layer, W, result.dequantized, stats.means));
  // What GPTQ gained over round-to-nearest on the same grid options, on this layer's inputs.
  // Without groups GPTQ's single grid is the one round-to-nearest would fit (same options, same
  // weights), so it is reused rather than searched again.
  gptq::GridOptions rtn_options = settings_.solver.grid;
  if (settings_.solver.sensitivity_weighted)
    rtn_options.mse_norm = 2.0f;
  const gptq::Grid rtn_grid = result.group_size <= 0 ? result.grids.front()
                              : settings_.solver.sensitivity_weighted
                                  ? gptq::fitGrid(W, rtn_options, H.diagonal().cast<float>().eval())
                                  : gptq::fitGrid(W, rtn_options);
  const Eigen::MatrixXf rtn_values = gptq::dequantize(gptq::quantizeRtn(W, rtn_grid), rtn_grid);
  const double gptq_error = gptq::layerError(W, result.dequantized, H);
  const double rtn_error = gptq::layerError(W, rtn_values, H);
  context.report(node.name(), "gptq_loss", result.loss);
  context.report(node.name(), "gptq_layer_error", gptq_error);
  context.report(node.name(), "rtn_layer_error", rtn_error);
  context.report(node.name(), "error_ratio", rtn_error > 0.0 ? gptq_error / rtn_error : 0.0);
  if (result.damping_retries > 0) {
    // Said once per layer: the factorisation needed more dampening than asked for.
    context.report(node.name(), "gptq_percdamp", result.percdamp);
    context.report(node.name(), "gptq_damping_retries", result.damping_retries);
    TICO_WARN << "gptq: layer '" << node.name() << "': the Hessian factored only with percdamp " << result.percdamp
              << " (" << result.damping_retries << " tenfold increase(s) over " << settings_.solver.percdamp << ")";
  }
  if (--stats.pending_layers == 0)
    stats.hessian.reset(); // c x c doubles: 128 MiB for 4096 features
  if (!settings_.common.inputs_from_quantized)
    return {};
  return {weightOverride(node, result.dequantized, layer.shape)};
}

bool GptqQuantizer::convert(Graph &graph, QuantizeContext &) { return writeQuantizedLayers(graph, layers_, "gptq"); }

} // namespace tico::gptq_plugin
