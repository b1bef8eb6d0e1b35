// Example quantizer plugin: round-to-nearest weights with a range estimator of its own, and
// optionally uint8 activations calibrated on data. It shows the whole quantizer ABI:
//
//   prepare  picks the linear layers and asks to observe their outputs (only when activations
//            are quantized: a weight-only quantizer leaves the plan empty and needs no data);
//   observe  keeps a running min/max per observed value, batch after batch;
//   convert  writes the result with the SDK's graph edits: integer weights behind a dequantize,
//            quantize/dequantize pairs on activations. tico's conversion bundle turns these into
//            quantized Circle tensors.
//
// The range estimator is the part a researcher would change: here each output channel's range
// is its min/max clipped to mean +- clip_sigmas standard deviations (0 = no clipping).
#include <tico/ir/graph.h>
#include <tico/ops/torch_ops.h>
#include <tico/plugin/plugin.h>
#include <tico/quant/graph_edits.h>
#include <tico/quant/quantizer.h>
#include <tico/support/error.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

namespace {

using tico::quant::Encoding;

struct Range {
  float min = 0.0f, max = 0.0f;
};

// The asymmetric grid through `range` (widened to hold 0, so zero stays exact).
Encoding affine(Range range, int bits) {
  Encoding e = tico::quant::gridOf(bits, /*is_signed=*/false);
  const float lo = std::min(range.min, 0.0f), hi = std::max(range.max, 0.0f);
  const float scale = std::max((hi - lo) / static_cast<float>(e.quant_max - e.quant_min), 1e-8f);
  const auto zp = static_cast<int64_t>(std::nearbyint(static_cast<float>(e.quant_min) - lo / scale));
  e.params.scale = {scale};
  e.params.zero_point = {std::clamp<int64_t>(zp, e.quant_min, e.quant_max)};
  return e;
}

// The custom estimator: min/max of one channel clipped to mean +- k standard deviations.
Range clippedRange(const float *row, std::size_t n, double k) {
  Range r{row[0], row[0]};
  double sum = 0.0, squares = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    r.min = std::min(r.min, row[i]);
    r.max = std::max(r.max, row[i]);
    sum += row[i];
    squares += static_cast<double>(row[i]) * row[i];
  }
  if (k <= 0.0)
    return r;
  const double mean = sum / static_cast<double>(n);
  const double sigma = std::sqrt(std::max(0.0, squares / static_cast<double>(n) - mean * mean));
  r.min = std::max(r.min, static_cast<float>(mean - k * sigma));
  r.max = std::min(r.max, static_cast<float>(mean + k * sigma));
  return r;
}

class RtnQuantizer final : public tico::Quantizer {
public:
  RtnQuantizer(int bits, double clip_sigmas, bool activations)
      : bits_(bits), clip_sigmas_(clip_sigmas), activations_(activations) {}

  void prepare(const tico::Graph &graph, tico::CalibrationPlan &plan, tico::QuantizeContext &) override {
    for (const auto &node : graph.nodes()) {
      if (node->opId() != tico::ops::aten::linear_default)
        continue;
      const tico::Value *weight = node->input(1);
      if (!weight->isConstant() || weight->dtype() != tico::DType::Float32 || weight->shape().size() != 2)
        continue; // already quantized (behind a dequantize) or not a plain weight
      layers_.push_back(node->name());
      if (activations_) {
        plan.observe(*node->input(0));
        plan.observe(*node->output());
      }
    }
  }

  void observe(const tico::Observation &o) override {
    const auto *x = reinterpret_cast<const float *>(o.data.data());
    const auto n = static_cast<std::size_t>(o.data.numel());
    if (n == 0)
      return;
    auto [min, max] = std::minmax_element(x, x + n);
    auto [it, fresh] = ranges_.try_emplace(o.value.name(), Range{*min, *max});
    if (!fresh) {
      it->second.min = std::min(it->second.min, *min);
      it->second.max = std::max(it->second.max, *max);
    }
  }

  bool convert(tico::Graph &graph, tico::QuantizeContext &context) override {
    for (const std::string &name : layers_) {
      tico::Node *node = graph.findNode(name);
      if (activations_)
        for (tico::Value *v : {node->input(0), node->output()})
          if (!tico::quant::isQuantized(*v) && ranges_.count(v->name()))
            tico::quant::quantizeActivation(graph, *v, affine(ranges_.at(v->name()), 8));
      quantizeWeight(graph, *node, context);
    }
    return !layers_.empty();
  }

private:
  void quantizeWeight(tico::Graph &graph, tico::Node &node, tico::QuantizeContext &context) {
    const tico::TensorData &w = *node.input(1)->constant();
    const std::vector<std::byte> bytes = w.contiguousBytes();
    const auto *values = reinterpret_cast<const float *>(bytes.data());
    const auto rows = static_cast<std::size_t>(w.sizes[0]), cols = static_cast<std::size_t>(w.sizes[1]);
    Encoding encoding = tico::quant::gridOf(bits_, /*is_signed=*/false);
    encoding.params.axis = 0; // one grid per output channel
    std::vector<uint8_t> codes(rows * cols);
    double error = 0.0;
    for (std::size_t r = 0; r < rows; ++r) {
      const Encoding row = affine(clippedRange(values + r * cols, cols, clip_sigmas_), bits_);
      const float scale = row.params.scale[0];
      const int64_t zp = row.params.zero_point[0];
      encoding.params.scale.push_back(scale);
      encoding.params.zero_point.push_back(zp);
      for (std::size_t c = 0; c < cols; ++c) {
        const float x = values[r * cols + c];
        const auto q = std::clamp<int64_t>(static_cast<int64_t>(std::nearbyint(x / scale)) + zp, encoding.quant_min,
                                           encoding.quant_max);
        codes[r * cols + c] = static_cast<uint8_t>(q);
        const double back = scale * static_cast<double>(q - zp);
        error += (x - back) * (x - back);
      }
    }
    context.report(node.name(), "weight_mse", error / static_cast<double>(rows * cols));
    auto data = std::make_shared<tico::TensorData>(
        tico::TensorData::fromVector(tico::DType::UInt8, {static_cast<int64_t>(rows), static_cast<int64_t>(cols)}, codes));
    tico::quant::dequantizedWeight(graph, node, "weight", std::move(data), encoding);
  }

  int bits_;
  double clip_sigmas_;
  bool activations_;
  std::vector<std::string> layers_;        // node names: convert() gets the same graph
  std::map<std::string, Range> ranges_;    // by value name
};

void registerPlugin(tico::Registrar &registrar) {
  registrar.addQuantizer(
      {"example.rtn",
       "round-to-nearest linear weights with sigma clipping, optional uint8 activations (example out-of-tree quantizer)",
       {{"bits", tico::OptionType::Int, int64_t{8}, "weight bits: 4 or 8 (unsigned, per output channel)"},
        {"clip_sigmas", tico::OptionType::Float, 0.0, "clip each channel's range to mean +- k sigma (0: min/max)"},
        {"activations", tico::OptionType::Bool, false, "also quantize linear inputs and outputs to uint8 (needs data)"}},
       [](const tico::Options &o) -> std::unique_ptr<tico::Quantizer> {
         const int64_t bits = o.getInt("bits");
         if (bits != 4 && bits != 8)
           throw tico::Error("example.rtn: bits must be 4 or 8, got " + std::to_string(bits));
         return std::make_unique<RtnQuantizer>(static_cast<int>(bits), o.getFloat("clip_sigmas"), o.getBool("activations"));
       }});
}

} // namespace

TICO_PLUGIN("tico-example-rtn-quantizer", "1.0.0", "Apache-2.0", registerPlugin)
