// Control-flow rules: IF, WHILE, CALL and CALL_ONCE name subgraphs whose interfaces match the
// operator, and no subgraph ends up calling itself.

#include "verify_detail.h"

#include "tico/circle/query.h"

namespace tico::circle_verify {
namespace {

using Op = circle::BuiltinOperator;
using Options = circle::BuiltinOptions;

bool validSubgraph(const CircleModel &model, int64_t index) {
  return index >= 0 && static_cast<uint64_t>(index) < model.subgraphs.size();
}

// Requires subgraph `callee` to take `inputs` and return `outputs` tensors.
void checkInterface(Findings &f, const std::string &path, const std::string &role, int64_t callee,
                    std::size_t inputs, std::size_t outputs) {
  if (!validSubgraph(f.model, callee))
    return; // reported as SUBGRAPH_INDEX
  const CircleSubGraph &sg = f.model.subgraphs[callee];
  if (sg.inputs.size() != inputs || sg.outputs.size() != outputs)
    f.error("CONTROL_FLOW_ARITY", path,
            role + " subgraph " + std::to_string(callee) + " takes " + std::to_string(sg.inputs.size()) +
                " inputs and returns " + std::to_string(sg.outputs.size()) + " outputs, but the operator needs " +
                std::to_string(inputs) + " and " + std::to_string(outputs));
}

void checkOperator(Findings &f, std::size_t s, std::size_t o) {
  const CircleOperator &op = f.model.subgraphs[s].operators[o];
  const int32_t code = builtinCodeOf(f.model, op);
  const std::string path = operatorPath(s, o);
  Options wanted = Options::NONE;
  switch (static_cast<Op>(code)) {
  case Op::IF: wanted = Options::IfOptions; break;
  case Op::WHILE: wanted = Options::WhileOptions; break;
  case Op::CALL: wanted = Options::CallOptions; break;
  case Op::CALL_ONCE: wanted = Options::CallOnceOptions; break;
  default: return;
  }
  const auto &options = op.builtin_options;
  if (options.type != wanted || !options.value) {
    f.error("CONTROL_FLOW_OPTIONS", path + ".builtin_options",
            operatorName(f.model, op) + " needs " + circle::EnumNameBuiltinOptions(wanted) + ", but has " +
                (options.type == Options::NONE ? std::string("no options") : circle::EnumNameBuiltinOptions(options.type)));
    return;
  }
  const std::size_t n_in = op.inputs.size(), n_out = op.outputs.size();
  if (const auto *o_if = options.AsIfOptions()) {
    if (n_in == 0) {
      f.error("CONTROL_FLOW_ARITY", path + ".inputs", "IF needs its condition as the first input");
      return;
    }
    checkInterface(f, path + ".builtin_options.then_subgraph_index", "then", o_if->then_subgraph_index, n_in - 1, n_out);
    checkInterface(f, path + ".builtin_options.else_subgraph_index", "else", o_if->else_subgraph_index, n_in - 1, n_out);
  } else if (const auto *o_while = options.AsWhileOptions()) {
    if (n_in != n_out)
      f.error("CONTROL_FLOW_ARITY", path,
              "WHILE carries its loop variables through: " + std::to_string(n_in) + " inputs but " +
                  std::to_string(n_out) + " outputs");
    checkInterface(f, path + ".builtin_options.cond_subgraph_index", "condition", o_while->cond_subgraph_index, n_in, 1);
    checkInterface(f, path + ".builtin_options.body_subgraph_index", "body", o_while->body_subgraph_index, n_in, n_in);
  } else if (const auto *o_call = options.AsCallOptions()) {
    checkInterface(f, path + ".builtin_options.subgraph", "called", o_call->subgraph, n_in, n_out);
  } else if (const auto *o_once = options.AsCallOnceOptions()) {
    checkInterface(f, path + ".builtin_options.init_subgraph_index", "initialization", o_once->init_subgraph_index, 0, 0);
  }
}

// Depth-first search over "subgraph calls subgraph" edges; a call into a subgraph that is still
// on the stack closes a cycle.
void checkCycles(Findings &f) {
  const CircleModel &model = f.model;
  const std::size_t n = model.subgraphs.size();
  enum class Mark : uint8_t { New, Active, Done };
  std::vector<Mark> mark(n, Mark::New);
  struct Frame {
    std::size_t subgraph, op = 0, callee = 0;
  };
  for (std::size_t root = 0; root < n; ++root) {
    if (mark[root] != Mark::New)
      continue;
    std::vector<Frame> stack{{root}};
    mark[root] = Mark::Active;
    while (!stack.empty()) {
      Frame &top = stack.back();
      const auto &ops = model.subgraphs[top.subgraph].operators;
      if (top.op >= ops.size()) {
        mark[top.subgraph] = Mark::Done;
        stack.pop_back();
        continue;
      }
      const auto callees = calledSubgraphs(ops[top.op]);
      if (top.callee >= callees.size()) {
        ++top.op;
        top.callee = 0;
        continue;
      }
      const int64_t callee = callees[top.callee++];
      if (!validSubgraph(model, callee))
        continue;
      if (mark[callee] == Mark::Active) {
        f.error("CONTROL_FLOW_CYCLE", operatorPath(top.subgraph, top.op) + ".builtin_options",
                operatorName(model, ops[top.op]) + " calls subgraph " + std::to_string(callee) +
                    (static_cast<std::size_t>(callee) == top.subgraph ? ", the subgraph it is in"
                                                                       : ", which is still calling this subgraph"));
      } else if (mark[callee] == Mark::New) {
        mark[callee] = Mark::Active;
        stack.push_back({static_cast<std::size_t>(callee)});
      }
    }
  }
}

} // namespace

void checkControlFlow(Findings &f) {
  for (std::size_t s = 0; s < f.model.subgraphs.size(); ++s)
    for (std::size_t o = 0; o < f.model.subgraphs[s].operators.size(); ++o)
      checkOperator(f, s, o);
  checkCycles(f);
}

} // namespace tico::circle_verify
