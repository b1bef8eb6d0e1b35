// The evaluator ABI: executing IR nodes on concrete data (constant folding, and checking an
// imported graph against PyTorch apart from the lowering).
#pragma once

#include "tico/ir/graph.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tico {

// A concrete value: a tensor, or a scalar for symbolic integer/float/bool values.
struct EvalValue {
  std::shared_ptr<const TensorData> tensor;
  std::optional<double> scalar;
};

using EvalEnv = std::unordered_map<const Value *, EvalValue>;

class Evaluator {
public:
  virtual ~Evaluator() = default;
  // True when this evaluator can run `node` (known op, supported argument kinds).
  virtual bool canEvaluate(const Node &node) const = 0;
  // Runs `node` with its Value arguments taken from `env`; returns one EvalValue per output.
  virtual std::vector<EvalValue> evaluate(const Node &node, const EvalEnv &env) const = 0;
};

struct EvaluatorSpec {
  std::string name;
  std::string summary;
  std::function<std::shared_ptr<const Evaluator>()> create;
};

// Runs a whole graph: binds user inputs in signature order, constants from their data, then
// evaluates every node in order. Returns the user outputs in order. Throws tico::Error with
// the failing node's name and op.
std::vector<EvalValue> runGraph(const Graph &graph, const Evaluator &evaluator,
                                const std::vector<std::shared_ptr<const TensorData>> &inputs);

} // namespace tico
