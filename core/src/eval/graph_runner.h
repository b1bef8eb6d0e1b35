// Whole-graph evaluation one node at a time: the engine behind runGraph and the calibration
// runner (core/src/quant/calibration_runner.cpp), which steps one runner per calibration batch
// through the graph node by node.
#pragma once

#include "tico/eval/evaluator.h"
#include "tico/ir/sym_expr.h"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tico::eval {

// When each value is read for the last time, and which values outlive the run (user
// outputs). Computed once per graph and shared by the runners of every batch.
struct GraphLiveness {
  // keep_outputs: the user outputs stay until the run ends (what a caller of outputs() needs).
  // Layer-wise calibration passes false: it reads no output at the end, and an LLM's logits
  // for every batch (vocabulary x tokens x batches) would otherwise all be held.
  explicit GraphLiveness(const Graph &graph, bool keep_outputs = true);
  std::unordered_map<const Value *, const Node *> last_use;
  std::unordered_set<const Value *> keep;
};

std::string describeNode(const Node &node);

class GraphRunner {
public:
  GraphRunner(const Graph &graph, const Evaluator &evaluator, std::shared_ptr<const GraphLiveness> liveness);

  // Binds the user inputs (in signature order; checked against the graph's types and symbols)
  // and every constant.
  void bind(const std::vector<std::shared_ptr<const TensorData>> &inputs);
  // Evaluates `node` from the environment and stores its outputs (checked against the graph).
  void runNode(const Node &node);
  // Drops every intermediate whose last reader is `node` (user outputs and constants stay);
  // returns the values it dropped.
  std::vector<const Value *> release(const Node &node);
  // The user outputs, in order, once every node has run.
  std::vector<EvalValue> userOutputs() const;

  EvalEnv &env() { return env_; }
  const EvalEnv &env() const { return env_; }

private:
  const SymExpr &expr(const std::string &text);
  void matchDim(const std::string &text, int64_t actual, const std::string &what);
  void checkTensor(const Value *v, const TensorData &t, const std::string &what);
  void bindUserInputs(const std::vector<std::shared_ptr<const TensorData>> &inputs);
  void bindConstants();
  void checkResult(const Node &node, const Value *out, const EvalValue &result);

  const Graph &graph_;
  const Evaluator &evaluator_;
  std::shared_ptr<const GraphLiveness> liveness_;
  EvalEnv env_;
  std::map<std::string, int64_t> bindings_;
  std::map<std::string, std::string> bound_by_;
  std::map<std::string, SymExpr> exprs_;
};

} // namespace tico::eval
