// The quantizer ABI: algorithms that turn a float graph into one carrying quantization.
//
// A quantizer works in three steps, driven by the host (docs/quantizers.md):
//
//   1. prepare(graph, plan, context)   declares what it needs to see while calibration data
//                                      flows through the graph: values to observe, and layers
//                                      it wants to quantize in sequence (GPTQ-like algorithms);
//   2. calibration                     the host runs every calibration batch through the graph
//                                      with the evaluator, node by node over all batches (so a
//                                      layer sees every batch's inputs before it runs), keeping
//                                      only live activations, and calls
//        observe(observation)          once per requested value and batch, and
//        layer(node, context)          once per requested layer, after its inputs have been
//                                      observed for every batch and before it runs; the
//                                      constants it returns replace the layer's for the rest of
//                                      the run, so later layers calibrate on quantized upstream;
//   3. convert(graph, context)         writes the result into the graph: quantize/dequantize
//                                      pairs of the quantized_decomposed namespace on
//                                      activations, integer weights behind a dequantize. The
//                                      pipeline's quantization bundle (docs/quantization.md)
//                                      then turns them into quantized Circle tensors.
//
// A quantizer whose plan stays empty (round-to-nearest of weights) gets no calibration run and
// needs no calibration data. Quantizers never read calibration files themselves: the host
// owns the sources (tico/quant/calibration.h), the schedule and the memory budget.
#pragma once

#include "tico/ir/graph.h"
#include "tico/pass/options.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tico {

class Registry;

// What a quantizer asked for in prepare(). Requests for the same value or node twice count once.
class CalibrationPlan {
public:
  // Deliver `value` (a user input or a node output holding a tensor) to observe() for every
  // calibration batch. Constants need no observation: convert() reads them from the graph.
  void observe(const Value &value) { observed_.insert(&value); }
  // Call Quantizer::layer() for `node` once every batch's inputs of it have been observed and
  // before it runs on calibration data.
  void layer(const Node &node) { layers_.insert(&node); }

  const std::set<const Value *> &observedValues() const { return observed_; }
  const std::set<const Node *> &layers() const { return layers_; }
  bool empty() const { return observed_.empty() && layers_.empty(); }

private:
  std::set<const Value *> observed_;
  std::set<const Node *> layers_;
};

// One value of one calibration batch.
struct Observation {
  const Value &value;
  const Node *producer;    // the node that computed it; null for a user input
  std::size_t batch;       // 0-based
  std::size_t batch_count;
  const TensorData &data;  // contiguous, the value's dtype and this batch's shape
};

// A constant a layer() call replaces for the rest of calibration (its quantized weight).
struct ConstantOverride {
  const Value *value = nullptr; // a constant the node reads
  std::shared_ptr<const TensorData> data;
};

// One measurement a quantizer reports (per-layer loss, clipping ratio, ...). The host prints
// them with --verbose and writes them into the encodings export.
struct QuantizerMetric {
  std::string subject; // a node or value name
  std::string metric;  // "gptq_loss", "layer_error_ratio", ...
  double value = 0.0;
};

// What a quantizer can reach while it runs.
class QuantizeContext {
public:
  QuantizeContext(const Registry &registry, std::size_t batch_count)
      : registry_(registry), batch_count_(batch_count) {}
  const Registry &registry() const { return registry_; }
  // Calibration batches the run will deliver (0 when the plan is empty or no data is given).
  std::size_t batchCount() const { return batch_count_; }
  void setBatchCount(std::size_t count) { batch_count_ = count; }

  void report(std::string subject, std::string metric, double value) {
    metrics_.push_back({std::move(subject), std::move(metric), value});
  }
  const std::vector<QuantizerMetric> &metrics() const { return metrics_; }

private:
  const Registry &registry_;
  std::size_t batch_count_;
  std::vector<QuantizerMetric> metrics_;
};

class Quantizer {
public:
  virtual ~Quantizer() = default;
  // Declares observations and layers. `graph` is the one convert() will receive; pointers into
  // it stay valid until then.
  virtual void prepare(const Graph &graph, CalibrationPlan &plan, QuantizeContext &context) = 0;
  // One requested value of one batch. Batches arrive in order for each value; values arrive in
  // graph order. The data is only valid during the call.
  virtual void observe(const Observation &observation) { (void)observation; }
  // A requested layer whose inputs every batch has delivered. Returned constants replace the
  // node's for the rest of calibration (return none to keep the float ones).
  virtual std::vector<ConstantOverride> layer(const Node &node, QuantizeContext &context) {
    (void)node;
    (void)context;
    return {};
  }
  // Writes the result into `graph`; returns true when it changed. Throws tico::Error naming
  // the node or value on failure (the conversion then writes no output file).
  virtual bool convert(Graph &graph, QuantizeContext &context) = 0;
};

struct QuantizerSpec {
  std::string name;    // "gptq", "ptq", ...
  std::string summary;
  std::vector<OptionSpec> options;
  std::function<std::unique_ptr<Quantizer>(const Options &)> create;
};

} // namespace tico
