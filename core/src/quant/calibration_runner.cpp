// Node-major calibration (calibration_runner.h). One GraphRunner per batch steps through the
// graph together with the others: node i runs for batch 0..N-1 before node i+1 runs for any,
// which is what lets a layer see all of its calibration inputs before it is quantized, while
// memory holds only the live frontier of activations (times N) and, with a budget, only part
// of it.
#include "quant/calibration_runner.h"

#include "eval/graph_runner.h"
#include "quant/offload_store.h"
#include "quant/progress.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace tico::quant {
namespace {

std::string batchName(std::size_t b, const CalibrationSource &source) {
  return "calibration batch " + std::to_string(b) + " of " + source.describe();
}

// The first NaN or infinity of a float tensor, if any.
std::optional<std::pair<int64_t, double>> firstNonFinite(const TensorData &t) {
  if (t.dtype != DType::Float32 && t.dtype != DType::Float64)
    return std::nullopt;
  const int64_t n = t.numel();
  const std::byte *p = t.data();
  for (int64_t i = 0; i < n; ++i) {
    double x;
    if (t.dtype == DType::Float32) {
      float f;
      std::memcpy(&f, p + i * 4, 4);
      x = f;
    } else {
      std::memcpy(&x, p + i * 8, 8);
    }
    if (!std::isfinite(x))
      return std::make_pair(i, x);
  }
  return std::nullopt;
}

std::shared_ptr<const TensorData> contiguous(const std::shared_ptr<const TensorData> &t) {
  if (t->isContiguous())
    return t;
  return std::make_shared<const TensorData>(TensorData::fromBytes(t->dtype, t->sizes, t->contiguousBytes()));
}

class Runner {
public:
  Runner(const Graph &graph, const Evaluator &evaluator, CalibrationSource &source, const CalibrationPlan &plan,
         Quantizer &quantizer, QuantizeContext &context, const CalibrationRunOptions &options)
      : graph_(graph), evaluator_(evaluator), source_(source), plan_(plan), quantizer_(quantizer),
        context_(context), options_(options), liveness_(std::make_shared<const eval::GraphLiveness>(graph, /*keep_outputs=*/false)) {
    std::size_t index = 0;
    for (const auto &node : graph.nodes()) {
      for (const NamedArg &arg : node->args())
        for (const Value *v : arg.value.referencedValues())
          if (uses_[v].empty() || uses_[v].back() != index)
            uses_[v].push_back(index);
      ++index;
    }
    node_count_ = index;
    classifyNodes();
  }

  CalibrationRunStats run() {
    const std::size_t n = source_.size();
    if (n == 0)
      throw Error(options_.label + ": the calibration source " + source_.describe() + " holds no batch");
    stats_.batches = n;
    batches_.resize(n);
    Progress progress(options_.label.empty() ? "calibrating" : "calibrating (" + options_.label + ")",
                      node_count_ * n + n, options_.progress_bar, options_.progress);
    for (std::size_t b = 0; b < n; ++b) {
      bindBatch(b);
      progress.advance(1);
    }
    std::size_t position = 0;
    for (const auto &node_ptr : graph_.nodes()) {
      const Node &node = *node_ptr;
      std::vector<ConstantOverride> overrides;
      if (plan_.layers().count(&node)) {
        overrides = quantizer_.layer(node, context_);
        applyOverrides(node, overrides);
      }
      if (!needed_.count(&node)) {
        // Nothing observed depends on it (an LLM's vocabulary projection for GPTQ, which leaves
        // the head alone): it does not run.
        for (std::size_t b = 0; b < n; ++b)
          for (const Value *v : batches_[b].runner->release(node)) // what only it read goes now
            forget(b, v);
        progress.advance(n);
        ++skipped_;
      } else {
        for (std::size_t b = 0; b < n; ++b) {
          runOne(node, position, b);
          progress.advance(1);
        }
      }
      // Every batch has passed this node: its mapped weights leave the resident set, so only
      // the current layer's weights are in memory at a time (a later reader maps them back).
      for (const NamedArg &arg : node.args())
        for (const Value *v : arg.value.referencedValues())
          if (v->isConstant())
            v->constant()->releasePages();
      // A replaced weight nobody reads any more goes now: a model's worth of them would
      // otherwise stay in memory until calibration ends.
      for (const ConstantOverride &o : overrides) {
        auto last = liveness_->last_use.find(o.value);
        if (last != liveness_->last_use.end() && last->second == &node)
          for (Batch &batch : batches_)
            batch.runner->env().erase(o.value);
      }
      ++position;
    }
    progress.finish();
    if (skipped_ > 0)
      TICO_INFO << options_.label << ": " << skipped_ << " nodes no observed value depends on were not run";
    return stats_;
  }

private:
  // needed_: the nodes observed values (and so the layers' inputs) depend on; constant_: those
  // that read constants only, whose result is the same for every batch.
  void classifyNodes() {
    std::vector<const Node *> order;
    for (const auto &node : graph_.nodes())
      order.push_back(node.get());
    std::unordered_set<const Value *> wanted(plan_.observedValues().begin(), plan_.observedValues().end());
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Node *node = *it;
      bool needed = false;
      for (const Value *out : node->outputs())
        needed = needed || wanted.count(out) > 0;
      if (!needed)
        continue;
      needed_.insert(node);
      for (const NamedArg &arg : node->args())
        for (const Value *v : arg.value.referencedValues())
          wanted.insert(v);
    }
    std::unordered_set<const Value *> constant_values;
    for (const Node *node : order) {
      bool constant = true;
      for (const NamedArg &arg : node->args())
        for (const Value *v : arg.value.referencedValues())
          constant = constant && (v->isConstant() || constant_values.count(v) > 0);
      if (!constant)
        continue;
      constant_.insert(node);
      for (const Value *out : node->outputs())
        constant_values.insert(out);
    }
  }

  struct Batch {
    std::unique_ptr<eval::GraphRunner> runner;
    // Intermediates this batch holds in memory (bytes), and those written to disk.
    std::unordered_map<const Value *, uint64_t> resident;
    std::unordered_map<const Value *, OffloadedTensor> offloaded;
  };

  void bindBatch(std::size_t b) {
    CalibrationBatch inputs;
    try {
      inputs = source_.batch(b);
    } catch (const Error &e) {
      throw Error(batchName(b, source_) + ": " + e.what());
    }
    Batch &batch = batches_[b];
    batch.runner = std::make_unique<eval::GraphRunner>(graph_, evaluator_, liveness_);
    try {
      batch.runner->bind(inputs);
    } catch (const Error &e) {
      throw Error(batchName(b, source_) + " does not fit the graph's inputs: " + e.what());
    }
    for (const Value *v : graph_.userInputs()) {
      auto it = batch.runner->env().find(v);
      if (it == batch.runner->env().end() || !it->second.tensor)
        continue;
      account(b, v, *it->second.tensor);
      if (plan_.observedValues().count(v))
        deliver(v, nullptr, b, it->second.tensor);
    }
    enforceBudget();
  }

  void applyOverrides(const Node &node, const std::vector<ConstantOverride> &overrides) {
    for (const ConstantOverride &o : overrides) {
      if (!o.value || !o.data)
        throw Error(options_.label + " returned an empty constant replacement for node '" + node.name() + "'");
      if (!o.value->isConstant())
        throw Error(options_.label + " replaced '" + o.value->name() + "' for node '" + node.name() +
                    "', which is not a constant");
      const TensorData &old = *o.value->constant();
      if (o.data->dtype != old.dtype || o.data->sizes != old.sizes)
        throw Error(options_.label + " replaced constant '" + o.value->name() + "' of node '" + node.name() +
                    "' with a tensor of another type or shape");
      for (Batch &batch : batches_)
        batch.runner->env()[o.value] = EvalValue{o.data, std::nullopt};
    }
  }

  // Runs node `node` (the `position`-th in graph order) for batch `b`.
  void runOne(const Node &node, std::size_t position, std::size_t b) {
    Batch &batch = batches_[b];
    if (b > 0 && constant_.count(&node)) {
      // Computed from constants only (a dequantized weight): batch 0's result, shared. Only
      // batch 0 accounts for its memory.
      for (const Value *out : node.outputs())
        if (auto it = batches_[0].runner->env().find(out); it != batches_[0].runner->env().end()) {
          batch.runner->env()[out] = it->second;
          if (plan_.observedValues().count(out) && it->second.tensor)
            deliver(out, &node, b, it->second.tensor);
        }
      for (const Value *v : batch.runner->release(node))
        forget(b, v);
      current_ = {static_cast<int64_t>(position), b};
      return;
    }
    reload(node, b);
    try {
      batch.runner->runNode(node);
    } catch (const Error &e) {
      throw Error(batchName(b, source_) + ": " + e.what());
    }
    uint64_t working = 0;
    for (const NamedArg &arg : node.args())
      for (const Value *v : arg.value.referencedValues())
        if (auto it = batch.resident.find(v); it != batch.resident.end())
          working += it->second;
    for (std::size_t i = 0; i < node.numOutputs(); ++i) {
      const Value *out = node.output(i);
      auto it = batch.runner->env().find(out);
      if (it == batch.runner->env().end() || !it->second.tensor)
        continue;
      working += it->second.tensor->nbytes();
      account(b, out, *it->second.tensor);
      if (plan_.observedValues().count(out))
        deliver(out, &node, b, it->second.tensor);
      // Nothing reads it (a graph output included: calibration needs none at the end): drop it now.
      if (!liveness_->last_use.count(out) && !liveness_->keep.count(out))
        forget(b, out);
    }
    if (options_.memory_budget && working > *options_.memory_budget)
      throw Error(options_.label + ": the calibration memory budget " + std::to_string(*options_.memory_budget) +
                  " bytes cannot hold " + eval::describeNode(node) + " for one batch: its inputs and outputs take " +
                  std::to_string(working) + " bytes; raise calibration.memory_budget");
    for (const Value *v : batch.runner->release(node))
      forget(b, v);
    current_ = {static_cast<int64_t>(position), b};
    enforceBudget();
  }

  void deliver(const Value *v, const Node *producer, std::size_t b, const std::shared_ptr<const TensorData> &data) {
    std::shared_ptr<const TensorData> flat = contiguous(data);
    if (auto bad = firstNonFinite(*flat))
      throw Error(batchName(b, source_) + ": " +
                  (producer ? eval::describeNode(*producer) + " output '" + v->name() + "'"
                            : "input '" + v->name() + "'") +
                  " holds " + (std::isnan(bad->second) ? "NaN" : "infinity") + " (element " +
                  std::to_string(bad->first) + "); " + options_.label + " cannot calibrate on it");
    quantizer_.observe(Observation{*v, producer, b, batches_.size(), *flat});
  }

  void account(std::size_t b, const Value *v, const TensorData &t) {
    auto [it, inserted] = batches_[b].resident.emplace(v, t.nbytes());
    if (inserted)
      resident_ += it->second;
    stats_.peak_resident_bytes = std::max(stats_.peak_resident_bytes, resident_);
  }

  void forget(std::size_t b, const Value *v) {
    Batch &batch = batches_[b];
    batch.runner->env().erase(v);
    if (auto it = batch.resident.find(v); it != batch.resident.end()) {
      resident_ -= it->second;
      batch.resident.erase(it);
    }
    batch.offloaded.erase(v);
  }

  // Maps back what `node` reads for batch `b` from disk.
  void reload(const Node &node, std::size_t b) {
    Batch &batch = batches_[b];
    if (batch.offloaded.empty())
      return;
    for (const NamedArg &arg : node.args())
      for (const Value *v : arg.value.referencedValues()) {
        auto it = batch.offloaded.find(v);
        if (it == batch.offloaded.end())
          continue;
        std::shared_ptr<const TensorData> t = store().load(it->second);
        batch.offloaded.erase(it);
        batch.runner->env()[v] = EvalValue{t, std::nullopt};
        account(b, v, *t);
      }
  }

  // When the next node to read `v` for batch `b` runs, in run order (node position x batches).
  uint64_t nextUse(const Value *v, std::size_t b) const {
    auto it = uses_.find(v);
    if (it == uses_.end())
      return std::numeric_limits<uint64_t>::max();
    const auto &[node_pos, cur_batch] = current_;
    for (std::size_t pos : it->second) {
      // Node `node_pos` has run for batches up to cur_batch; later batches still need it.
      const auto p = static_cast<int64_t>(pos);
      if (p > node_pos || (p == node_pos && b > cur_batch))
        return static_cast<uint64_t>(pos) * batches_.size() + b;
    }
    return std::numeric_limits<uint64_t>::max();
  }

  // Writes the values needed last to disk until the rest fits the budget.
  void enforceBudget() {
    if (!options_.memory_budget)
      return;
    while (resident_ > *options_.memory_budget) {
      std::size_t victim_batch = 0;
      const Value *victim = nullptr;
      uint64_t latest = 0;
      for (std::size_t b = 0; b < batches_.size(); ++b)
        for (const auto &[v, bytes] : batches_[b].resident) {
          const uint64_t when = nextUse(v, b);
          if (!victim || when > latest) {
            victim = v;
            victim_batch = b;
            latest = when;
          }
        }
      if (!victim)
        return;
      offload(victim_batch, victim);
    }
  }

  void offload(std::size_t b, const Value *v) {
    Batch &batch = batches_[b];
    auto it = batch.runner->env().find(v);
    const uint64_t bytes = batch.resident.at(v);
    if (it != batch.runner->env().end() && it->second.tensor) {
      batch.offloaded[v] = store().save(*it->second.tensor);
      stats_.offloaded_bytes += bytes;
      ++stats_.offloaded_tensors;
    }
    batch.runner->env().erase(v);
    batch.resident.erase(v);
    resident_ -= bytes;
  }

  OffloadStore &store() {
    if (!store_) {
      store_ = std::make_unique<OffloadStore>(options_.offload_dir);
      TICO_INFO << options_.label << ": activations beyond the memory budget go to " << store_->directory();
    }
    return *store_;
  }

  const Graph &graph_;
  const Evaluator &evaluator_;
  CalibrationSource &source_;
  const CalibrationPlan &plan_;
  Quantizer &quantizer_;
  QuantizeContext &context_;
  const CalibrationRunOptions &options_;
  std::shared_ptr<const eval::GraphLiveness> liveness_;
  std::unordered_set<const Node *> needed_;
  std::unordered_set<const Node *> constant_;
  std::size_t skipped_ = 0;
  std::unordered_map<const Value *, std::vector<std::size_t>> uses_; // node positions, ascending
  std::size_t node_count_ = 0;
  std::vector<Batch> batches_;
  uint64_t resident_ = 0;
  // (node position, batch) last run; position -1 before the first node.
  std::pair<int64_t, std::size_t> current_{-1, 0};
  std::unique_ptr<OffloadStore> store_;
  CalibrationRunStats stats_;
};

} // namespace

CalibrationRunStats runCalibration(const Graph &graph, const Evaluator &evaluator, CalibrationSource &source,
                                   const CalibrationPlan &plan, Quantizer &quantizer, QuantizeContext &context,
                                   const CalibrationRunOptions &options) {
  return Runner(graph, evaluator, source, plan, quantizer, context, options).run();
}

} // namespace tico::quant
