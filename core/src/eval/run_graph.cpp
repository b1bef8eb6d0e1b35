// Whole-graph evaluation: binds the user inputs (and through their sizes the export-time
// symbols), then runs every node with the evaluator. Used to check an imported or rewritten
// graph against PyTorch independently of any lowering.
#include "tico/eval/evaluator.h"

#include "eval/graph_runner.h"

namespace tico {

std::vector<EvalValue> runGraph(const Graph &graph, const Evaluator &evaluator,
                                const std::vector<std::shared_ptr<const TensorData>> &inputs) {
  // Each intermediate is freed after its last use: whole models would otherwise hold every
  // activation at once.
  eval::GraphRunner runner(graph, evaluator, std::make_shared<const eval::GraphLiveness>(graph));
  runner.bind(inputs);
  for (const auto &node : graph.nodes()) {
    runner.runNode(*node);
    runner.release(*node);
  }
  return runner.userOutputs();
}

} // namespace tico
