// A test quantizer for the calibration host path (tests/quant/test_calibration_sources.py): it
// observes every user input and every tensor a node computes, changes nothing, and reports what
// it saw as metrics (tico-run -v prints them), so a test can compare them with the data it gave:
//   <input> sum@<batch>   the sum of that input's elements in that batch (batch order)
//   <value> batches       how many batches delivered the value
//   <value> sum           the sum over all batches
//   <value> elements      the element count over all batches
#include "tico/plugin/plugin.h"
#include "tico/quant/quantizer.h"

#include <cstring>
#include <map>
#include <set>
#include <vector>

namespace {

double elementAt(const tico::TensorData &t, int64_t i) {
  const std::byte *p = t.data() + static_cast<std::size_t>(i) * tico::elementSize(t.dtype);
  auto read = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return static_cast<double>(v);
  };
  switch (t.dtype) {
  case tico::DType::Float32: return read(float{});
  case tico::DType::Float64: return read(double{});
  case tico::DType::Int64: return read(int64_t{});
  case tico::DType::Int32: return read(int32_t{});
  case tico::DType::Bool:
  case tico::DType::UInt8: return read(uint8_t{});
  default: return 0.0; // other types count as zero; the tests use the ones above
  }
}

class ObserveStats : public tico::Quantizer {
public:
  void prepare(const tico::Graph &graph, tico::CalibrationPlan &plan, tico::QuantizeContext &) override {
    for (const tico::Value *v : graph.userInputs())
      if (v->isTensor()) {
        plan.observe(*v);
        inputs_.insert(v->name());
      }
    for (const auto &node : graph.nodes())
      for (std::size_t i = 0; i < node->numOutputs(); ++i)
        if (node->output(i)->isTensor())
          plan.observe(*node->output(i));
  }

  void observe(const tico::Observation &o) override {
    double sum = 0.0;
    for (int64_t i = 0; i < o.data.numel(); ++i)
      sum += elementAt(o.data, i);
    Stats &s = stats_[o.value.name()];
    s.batches += 1;
    s.sum += sum;
    s.elements += static_cast<double>(o.data.numel());
    if (inputs_.count(o.value.name()))
      per_batch_.push_back({o.value.name(), "sum@" + std::to_string(o.batch), sum});
  }

  bool convert(tico::Graph &, tico::QuantizeContext &context) override {
    for (const auto &m : per_batch_)
      context.report(m.subject, m.metric, m.value);
    for (const auto &[name, s] : stats_) {
      context.report(name, "batches", static_cast<double>(s.batches));
      context.report(name, "sum", s.sum);
      context.report(name, "elements", s.elements);
    }
    return false;
  }

private:
  struct Stats {
    std::size_t batches = 0;
    double sum = 0.0;
    double elements = 0.0;
  };
  std::set<std::string> inputs_;
  std::map<std::string, Stats> stats_;
  std::vector<tico::QuantizerMetric> per_batch_;
};

void registerAll(tico::Registrar &registrar) {
  registrar.addQuantizer({"test.observe-stats",
                          "observes every input and node output and reports their sums (test only)",
                          {},
                          [](const tico::Options &) { return std::make_unique<ObserveStats>(); }});
}

} // namespace

TICO_PLUGIN("test-observe-stats", "0.1.0", "Apache-2.0", registerAll)
