// IF and WHILE: run other subgraphs of the model.
//
// IF: input 0 is the condition (one bool, or one number != 0); the remaining inputs are passed
// to then_subgraph or else_subgraph, whose outputs become the operator's outputs.
// WHILE: the inputs are the initial loop variables; while cond_subgraph(vars) gives true,
// vars = body_subgraph(vars); the final vars are the outputs. Shapes may change between
// iterations (dynamic loop variables).
#include "kernels/registrations.h"

namespace tico::interp {
namespace {

std::vector<Tensor> presentInputs(KernelContext &ctx, std::size_t first) {
  std::vector<Tensor> values;
  for (std::size_t i = first; i < ctx.inputCount(); ++i)
    values.push_back(ctx.input(i));
  return values;
}

bool truth(const Tensor &condition, const char *what) {
  check(condition.numel() == 1, std::string(what) + " must hold exactly one value, got shape " +
                                    shapeString(condition.shape));
  return condition.dtype == DType::Bool ? condition.as<uint8_t>()[0] != 0 : numberAt(condition, 0) != 0.0;
}

void setOutputs(KernelContext &ctx, std::vector<Tensor> values, const char *what) {
  check(values.size() == ctx.outputCount(), std::string(what) + " produced " + std::to_string(values.size()) +
                                                " values for " + std::to_string(ctx.outputCount()) + " outputs");
  for (std::size_t i = 0; i < values.size(); ++i)
    ctx.setOutput(i, std::move(values[i]));
}

void runIf(KernelContext &ctx) {
  const auto &options = ctx.options<circle::IfOptionsT>();
  const bool taken = truth(ctx.input(0), "the IF condition");
  const auto branch = static_cast<uint32_t>(taken ? options.then_subgraph_index : options.else_subgraph_index);
  setOutputs(ctx, ctx.runner().runSubgraph(branch, presentInputs(ctx, 1)), "the IF branch");
}

void runWhile(KernelContext &ctx) {
  const auto &options = ctx.options<circle::WhileOptionsT>();
  std::vector<Tensor> vars = presentInputs(ctx, 0);
  const uint64_t limit = ctx.runner().maxLoopIterations();
  for (uint64_t iteration = 0;; ++iteration) {
    std::vector<Tensor> condition = ctx.runner().runSubgraph(static_cast<uint32_t>(options.cond_subgraph_index), vars);
    check(condition.size() == 1, "the WHILE condition subgraph returned " + std::to_string(condition.size()) +
                                     " values instead of one");
    if (!truth(condition[0], "the WHILE condition"))
      break;
    check(iteration < limit, "the WHILE loop ran " + std::to_string(limit) +
                                 " iterations and its condition still holds; the limit is the runtime option "
                                 "max_loop_iterations (tico-circle run/bench --max-iterations)");
    std::vector<Tensor> next = ctx.runner().runSubgraph(static_cast<uint32_t>(options.body_subgraph_index), vars);
    check(next.size() == vars.size(), "the WHILE body returned " + std::to_string(next.size()) + " values for " +
                                          std::to_string(vars.size()) + " loop variables");
    for (std::size_t i = 0; i < vars.size(); ++i)
      check(next[i].dtype == vars[i].dtype, "the WHILE body changed loop variable " + std::to_string(i) + " from " +
                                                dtypeString(vars[i].dtype) + " to " + dtypeString(next[i].dtype));
    vars = std::move(next);
  }
  setOutputs(ctx, std::move(vars), "the WHILE loop");
}

// Subgraph references and interface sizes, checked before anything runs.
std::string checkSubgraph(const OpSignature &op, int32_t index, const char *role, std::size_t inputs,
                          std::size_t outputs) {
  const auto &subgraphs = op.model().subgraphs;
  if (index < 0 || static_cast<std::size_t>(index) >= subgraphs.size())
    return std::string(role) + " subgraph " + std::to_string(index) + " does not exist (" +
           std::to_string(subgraphs.size()) + " subgraphs)";
  const CircleSubGraph &graph = subgraphs[static_cast<std::size_t>(index)];
  if (graph.inputs.size() != inputs || graph.outputs.size() != outputs)
    return std::string(role) + " subgraph " + std::to_string(index) + " has " + std::to_string(graph.inputs.size()) +
           " inputs and " + std::to_string(graph.outputs.size()) + " outputs, expected " + std::to_string(inputs) +
           " and " + std::to_string(outputs);
  return "";
}

std::string checkIf(const OpSignature &op) {
  if (op.inputCount() < 1)
    return "IF needs a condition input";
  const auto &options = op.options<circle::IfOptionsT>();
  for (auto [index, role] : {std::pair{options.then_subgraph_index, "then"}, std::pair{options.else_subgraph_index, "else"}})
    if (auto reason = checkSubgraph(op, index, role, op.inputCount() - 1, op.outputCount()); !reason.empty())
      return reason;
  return "";
}

std::string checkWhile(const OpSignature &op) {
  const auto &options = op.options<circle::WhileOptionsT>();
  if (op.inputCount() != op.outputCount())
    return "WHILE has " + std::to_string(op.inputCount()) + " inputs but " + std::to_string(op.outputCount()) +
           " outputs";
  if (auto reason = checkSubgraph(op, options.cond_subgraph_index, "cond", op.inputCount(), 1); !reason.empty())
    return reason;
  return checkSubgraph(op, options.body_subgraph_index, "body", op.inputCount(), op.outputCount());
}

} // namespace

void registerControlFlowKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::IF, runIf, checkIf, kRunsSubgraphs);
  table.add(circle::BuiltinOperator::WHILE, runWhile, checkWhile, kRunsSubgraphs);
}

} // namespace tico::interp
