// The ptq quantizer (ptq_quantizer.h).
#include "ptq_quantizer.h"

#include "tico/quant/graph_edits.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

#include <algorithm>
#include <cmath>


namespace tico::ptq {
namespace {

Tiling weightTiling(const NodeConfig &c, int64_t channel_axis) {
  if (c.weight_granularity == "per-tensor")
    return Tiling::perTensor();
  if (c.weight_granularity == "per-block") // blocks of input columns of a 2-D [out, in] weight
    return Tiling::perBlock(1, c.block_size, channel_axis);
  return Tiling::perChannel(channel_axis);
}

// The codes of `values` on `grid`, element i with the parameters of its channel, written
// straight into the storage type's bytes (no wider intermediate: an embedding table's codes are
// its size in bytes, not eight times that).
template <typename T>
std::shared_ptr<const TensorData> quantizeCodes(DType dtype, const std::vector<int64_t> &shape,
                                                std::span<const float> values, const std::vector<AffineParams> &params,
                                                int64_t inner, const Grid &grid) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  auto *codes = reinterpret_cast<T *>(bytes.data());
  const auto channels = static_cast<int64_t>(params.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const AffineParams &p = channels == 1 ? params[0] : params[(static_cast<int64_t>(i) / inner) % channels];
    codes[i] = static_cast<T>(quantizeCode(values[i], p, grid));
  }
  return std::make_shared<const TensorData>(TensorData::fromBytes(dtype, shape, std::move(bytes)));
}

std::string shapeText(const std::vector<int64_t> &sizes) {
  std::string text = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i)
    text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

} // namespace

EstimatorSettings PtqQuantizer::settingsFor(const Grid &grid, bool per_tensor) const {
  EstimatorSettings s;
  s.grid = grid;
  s.per_tensor = per_tensor;
  s.percentile = config_.percentile;
  s.momentum = config_.momentum;
  s.max_samples = config_.max_samples;
  s.samples_per_batch = config_.samples_per_batch;
  s.candidates = config_.candidates;
  return s;
}

void PtqQuantizer::prepare(const Graph &graph, CalibrationPlan &plan, QuantizeContext &) {
  activations_.clear();
  order_.clear();
  returned_views_.clear();
  weights_.clear();
  patch_means_.clear();
  patch_inputs_.clear();
  const NodeConfigs configs(graph, config_);
  if (config_.strict && !configs.unmatched().empty()) {
    std::string message = "quantizer 'ptq': " + std::to_string(configs.unmatched().size()) +
                          " override(s) match no node (strict; set strict=false to allow):";
    for (const std::string &o : configs.unmatched())
      message += "\n  '" + o + "'";
    throw Error(message);
  }
  const Placement placement = place(graph, configs, config_);
  for (const WeightSite &site : placement.weights) {
    const NodeConfig &c = configs.of(*site.node);
    const std::string context = "quantizer 'ptq', weight of node '" + site.node->name() + "'";
    if (c.weight_granularity == "per-block") {
      // Written as codes read through per-block tables (quant::dequantizedWeight): a 2-D
      // [out, in] weight cut into blocks of consecutive input columns, one grid per row and block.
      const Value *weight = site.node->input(site.arg);
      const std::vector<int64_t> sizes = weight && weight->isConstant() ? weight->constant()->sizes : std::vector<int64_t>{};
      if (sizes.size() != 2 || site.channel_axis != 0)
        throw Error(context + ": per-block weights are blocks of input columns of a 2-D [out, in] weight (linear, "
                              "embedding); this weight has shape " + shapeText(sizes) + "; use per-channel here");
      if (sizes[1] % c.block_size != 0)
        throw Error(context + ": block_size " + std::to_string(c.block_size) + " does not divide the " +
                    std::to_string(sizes[1]) + " input columns of the weight");
    }
    const EstimatorEntry &entry = findEstimator(c.weight_estimator);
    if (entry.per_tensor_only && c.weight_granularity != "per-tensor")
      throw Error(context + ": range estimator '" + entry.name + "' works per tensor only; the weight is " +
                  c.weight_granularity);
    weights_.push_back({site.node->name(), site.arg, site.channel_axis, c});
    if (config_.bias_correction && site.arg == "weight") {
      std::string why;
      std::optional<PatchMeans> means = PatchMeans::forLayer(*site.node, why);
      if (!means) {
        TICO_DEBUG << "quantizer 'ptq': no bias correction for '" << site.node->name() << "': " << why;
        continue;
      }
      patch_means_.emplace(site.node->name(), std::move(*means));
      patch_inputs_[site.node->input(0)].push_back(site.node->name());
      plan.observe(*site.node->input(0));
    }
  }
  for (const Value *v : placement.activations) {
    const NodeConfig &c = configs.of(*placement.owner.at(v));
    Activation a;
    a.name = v->name();
    a.grid = parseGrid(c.act_dtype, config_.activation_scheme, "quantizer 'ptq', activation '" + v->name() + "'");
    a.estimator = c.act_estimator;
    a.ranges = findEstimator(c.act_estimator).create(settingsFor(a.grid, true));
    activations_.emplace(v, std::move(a));
    order_.push_back(v);
    plan.observe(*v);
  }
  for (const auto &[view, root] : placement.returned_views)
    returned_views_.emplace_back(view->name(), root->name());
  TICO_INFO << "quantizer 'ptq': " << placement.quantized_ops.size() << " quantized ops, " << order_.size()
            << " observed activations, " << weights_.size() << " weights, " << placement.kept_float.size()
            << " ops kept float next to float-only ops";
  for (const Node *n : placement.kept_float)
    TICO_DEBUG << "quantizer 'ptq': '" << n->name() << "' (" << n->op().str()
               << ") stays float: an activation of it is also read by an op without an integer kernel";
}

void PtqQuantizer::observe(const Observation &observation) {
  if (auto layers = patch_inputs_.find(&observation.value); layers != patch_inputs_.end())
    for (const std::string &node : layers->second)
      patch_means_.at(node).add(observation.data);
  auto it = activations_.find(&observation.value);
  if (it == activations_.end())
    return;
  const TensorData &data = observation.data;
  if (data.dtype != DType::Float32)
    throw Error("quantizer 'ptq': activation '" + observation.value.name() + "' arrived as " +
                std::string(dtypeName(data.dtype)) + ", not float32");
  // The calibration runner hands over contiguous tensors: one row, read in place.
  const auto n = static_cast<std::size_t>(data.numel());
  it->second.ranges->update(TileRows::view({reinterpret_cast<const float *>(data.data()), n}, 1, static_cast<int64_t>(n)));
  ++it->second.batches;
}

bool PtqQuantizer::quantizeWeight(Graph &graph, const Weight &w, QuantizeContext &context) {
  Node *node = graph.findNode(w.node);
  if (node == nullptr)
    throw Error("quantizer 'ptq': node '" + w.node + "' disappeared between prepare and convert");
  Value *weight = node->input(w.arg);
  if (weight == nullptr || !weight->isConstant() || weight->dtype() != DType::Float32)
    return false;
  const std::string context_text = "quantizer 'ptq', weight '" + weight->name() + "' of node '" + node->name() + "'";
  const TensorData &data = *weight->constant();
  const std::vector<int64_t> shape = data.sizes;
  const Grid grid = parseGrid(w.config.weight_dtype, config_.weight_scheme, context_text);
  const Tiling tiling = weightTiling(w.config, w.channel_axis);
  // A weight tied between nodes (same constant, same configuration) is quantized once.
  const std::string key = weight->name() + "|" + gridName(grid) + "|" + tiling.describe() + "|" +
                          w.config.weight_estimator;
  if (auto it = tied_.find(key); it != tied_.end()) {
    node->setArg(w.arg, Argument::value(it->second));
    return true;
  }
  // A contiguous weight (the usual case: mapped from the archive) is read where it lies.
  std::vector<std::byte> gathered;
  if (!data.isContiguous())
    gathered = data.contiguousBytes();
  const auto *first = reinterpret_cast<const float *>(gathered.empty() ? data.data() : gathered.data());
  const std::span<const float> values(first, static_cast<std::size_t>(data.numel()));
  TileRows rows;
  try {
    rows = toRows(values, shape, tiling);
  } catch (const Error &e) {
    throw Error(context_text + ": " + e.what());
  }
  const bool per_tensor = tiling.kind == Tiling::Kind::PerTensor;
  std::unique_ptr<RangeEstimator> estimator = findEstimator(w.config.weight_estimator).create(settingsFor(grid, per_tensor));
  estimator->update(rows);
  const std::vector<Range> ranges = estimator->ranges();
  std::vector<AffineParams> params;
  for (const Range &r : ranges)
    params.push_back(computeQParams(r, grid, per_tensor));

  quant::Encoding encoding = quant::gridOf(grid.bits, grid.is_signed);
  for (const AffineParams &p : params) {
    encoding.params.scale.push_back(p.scale);
    encoding.params.zero_point.push_back(p.zero_point);
  }
  const bool per_block = tiling.kind == Tiling::Kind::PerBlock;
  if (!per_tensor)
    encoding.params.axis = tiling.axis;
  if (per_block)
    encoding.params.block_size = tiling.block_size;
  // Codes in the weight's own layout: element i belongs to channel (i / inner) % channels; for
  // blocks of a 2-D weight, i / block is (row, block) in row-major order, the tiles' order.
  int64_t inner = 1;
  if (per_block)
    inner = tiling.block_size;
  else if (!per_tensor)
    for (std::size_t d = static_cast<std::size_t>(tiling.axis) + 1; d < shape.size(); ++d)
      inner *= shape[d];
  std::shared_ptr<const TensorData> packed;
  if (encoding.storage == DType::UInt8)
    packed = quantizeCodes<uint8_t>(DType::UInt8, shape, values, params, inner, grid);
  else if (encoding.storage == DType::Int8)
    packed = quantizeCodes<int8_t>(DType::Int8, shape, values, params, inner, grid);
  else
    packed = quantizeCodes<int16_t>(DType::Int16, shape, values, params, inner, grid);
  if (patch_means_.count(node->name()))
    correctBias(graph, *node, values, params, inner, grid, context);
  data.releasePages(); // the float weight has been read for the last time here
  Value *dequantized = quant::dequantizedWeight(graph, *node, w.arg, std::move(packed), encoding);
  tied_[key] = dequantized;
  return true;
}

void PtqQuantizer::correctBias(Graph &graph, Node &node, std::span<const float> values,
                               const std::vector<AffineParams> &params, int64_t inner, const Grid &grid,
                               QuantizeContext &context) {
  const auto channels = static_cast<int64_t>(params.size());
  std::vector<float> delta(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const AffineParams &p = channels == 1 ? params[0] : params[(static_cast<int64_t>(i) / inner) % channels];
    delta[i] = dequantizeCode(quantizeCode(values[i], p, grid), p) - values[i];
  }
  const std::vector<double> shift = patch_means_.at(node.name()).outputShift(delta);
  if (const std::string why = quant::subtractFromBias(graph, node, shift); !why.empty()) {
    TICO_DEBUG << "quantizer 'ptq': no bias correction for '" << node.name() << "': " << why;
    return;
  }
  double largest = 0.0;
  for (double v : shift)
    largest = std::max(largest, std::fabs(v));
  context.report(node.name(), "bias_correction_max_shift", largest);
}

bool PtqQuantizer::convert(Graph &graph, QuantizeContext &context) {
  bool changed = false;
  tied_.clear();
  for (const Weight &w : weights_)
    changed |= quantizeWeight(graph, w, context);
  std::map<std::string, quant::Encoding> encodings;
  for (const Value *key : order_) {
    Activation &a = activations_.at(key);
    Value *v = graph.findValue(a.name);
    if (v == nullptr)
      throw Error("quantizer 'ptq': activation '" + a.name + "' disappeared between prepare and convert");
    if (a.batches == 0)
      throw Error("quantizer 'ptq': activation '" + a.name + "' was never observed (no calibration batch reached it)");
    std::vector<Range> ranges;
    try {
      ranges = a.ranges->ranges();
    } catch (const Error &e) {
      throw Error("quantizer 'ptq', activation '" + a.name + "': " + e.what());
    }
    const AffineParams p = computeQParams(ranges.at(0), a.grid, true);
    quant::Encoding encoding = quant::gridOf(a.grid.bits, a.grid.is_signed);
    encoding.params.scale = {p.scale};
    encoding.params.zero_point = {p.zero_point};
    context.report(a.name, "range_min", ranges[0].min);
    context.report(a.name, "range_max", ranges[0].max);
    encodings[a.name] = encoding;
    if (alreadyQuantized(*v))
      continue;
    quant::quantizeActivation(graph, *v, encoding);
    changed = true;
  }
  for (const auto &[view_name, root_name] : returned_views_) {
    Value *view = graph.findValue(view_name);
    if (view == nullptr || alreadyQuantized(*view) || !encodings.count(root_name))
      continue;
    quant::quantizeActivation(graph, *view, encodings.at(root_name));
    changed = true;
  }
  return changed;
}

std::vector<std::string> PtqQuantizer::observedNames() const {
  std::vector<std::string> out;
  for (const Value *v : order_)
    out.push_back(activations_.at(v).name);
  return out;
}

} // namespace tico::ptq
