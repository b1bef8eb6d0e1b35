// Index-safe editing of one subgraph, shared by every Circle pass.
//
// The editor keeps producer and consumer tables up to date while a pass rewrites, so a pass
// can sweep the operators once and apply many local rewrites without rebuilding its view.
// Operators are never moved during the sweep: removed operators are only marked, new ones are
// appended with an anchor ("place me before operator i"). finish() drops the removed ones and
// restores an execution order with a stable topological sort, so a pass never has to work out
// where an operator must go: the original order is kept wherever the dataflow allows it.
// Tensors and buffers are only ever appended; `compact` removes the ones left unused.
#pragma once

#include "model_query.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tico::circle_passes {

class SubgraphEditor {
public:
  SubgraphEditor(CircleModel &model, uint32_t subgraph);

  CircleModel &model() { return model_; }
  const CircleModel &model() const { return model_; }
  CircleSubGraph &graph() { return model_.subgraphs[subgraph_]; }
  const CircleSubGraph &graph() const { return model_.subgraphs[subgraph_]; }
  uint32_t subgraphIndex() const { return subgraph_; }

  // ---- operators (indices are stable until finish()) ----
  int operatorCount() const { return static_cast<int>(graph().operators.size()); }
  bool alive(int op) const { return !removed_[op]; }
  CircleOperator &op(int i) { return graph().operators[i]; }
  const CircleOperator &op(int i) const { return graph().operators[i]; }
  BuiltinOperator code(int op) const { return builtinOf(model_, graph().operators[op]); }
  bool sideEffects(int op) const { return hasSideEffects(model_, graph(), graph().operators[op]); }

  // ---- tensors ----
  CircleTensor &tensor(int32_t t) { return graph().tensors[t]; }
  const CircleTensor &tensor(int32_t t) const { return graph().tensors[t]; }
  bool validTensor(int32_t t) const { return t >= 0 && static_cast<std::size_t>(t) < graph().tensors.size(); }
  // The live operator writing `t`, or -1.
  int producer(int32_t t) const;
  // Live operators reading `t`, ascending, each once.
  std::vector<int> consumers(int32_t t) const;
  // Number of reads of `t` by live operators plus its occurrences among the subgraph outputs.
  int useCount(int32_t t) const;
  // True when `op` is the only reader of `t` and `t` is not a subgraph output.
  bool onlyUseIs(int32_t t, int op) const;
  bool isGraphOutput(int32_t t) const;
  bool isGraphInput(int32_t t) const;
  bool isConstantTensor(int32_t t) const;

  // ---- mutations ----
  void setInput(int op, std::size_t slot, int32_t t);
  void setOutput(int op, std::size_t slot, int32_t t);
  // Makes subgraph output number `position` the tensor `t`.
  void setGraphOutput(std::size_t position, int32_t t);
  // Points every read of `from` by a live operator at `to` (subgraph outputs are left alone).
  // Returns the number of reads changed.
  int replaceUses(int32_t from, int32_t to);
  // Points the reads of `from` by operator `op` at `to`.
  void replaceUsesIn(int op, int32_t from, int32_t to);
  void removeOp(int op);
  // Appends an operator that finish() will place before `anchor` (-1: at the end) or later if
  // its inputs are produced later. Returns its index.
  int addOp(CircleOperator op, int anchor);
  int addOp(BuiltinOperator code, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
            circle::BuiltinOptionsUnion options, int anchor);
  // Appends a tensor (the name is kept as given; `compact` makes names unique at the end).
  int32_t addTensor(CircleTensor tensor);
  // A new constant tensor with its own buffer.
  int32_t addConstant(circle::TensorType type, std::vector<int32_t> shape, std::shared_ptr<const TensorData> data,
                      std::string name);
  int32_t addInt32Constant(const std::vector<int32_t> &values, std::vector<int32_t> shape, std::string name);
  // A new tensor with the type, shape and quantization of `like`.
  int32_t addTensorLike(int32_t like, std::vector<int32_t> shape, std::string name);
  // Records a change made directly on an operator or tensor (options, shapes).
  void markChanged() { changed_ = true; }
  bool changed() const { return changed_; }

  // Drops removed operators and re-establishes execution order. Returns whether anything
  // changed. The editor must not be used afterwards.
  bool finish();

private:
  void addUse(int32_t t, int op);
  void dropUse(int32_t t, int op);
  void growTensorTables();

  CircleModel &model_;
  uint32_t subgraph_;
  std::vector<uint8_t> removed_;
  std::vector<int> anchors_; // per operator: -2 original, -1 end, else the anchor
  std::vector<int> producer_;
  std::vector<std::vector<int>> readers_; // one entry per read
  std::vector<int> output_count_;          // occurrences among the subgraph outputs
  std::vector<uint8_t> is_input_;
  int original_count_ = 0;
  bool changed_ = false;
};

// Runs `body(editor)` on every subgraph and finishes each; returns whether any changed.
template <typename Body> bool forEachSubgraph(CircleModel &model, Body &&body) {
  bool changed = false;
  for (uint32_t s = 0; s < model.subgraphs.size(); ++s) {
    SubgraphEditor editor(model, s);
    body(editor);
    changed |= editor.finish();
  }
  return changed;
}

// Repeats sweeps of `rewrite(editor, op)` over the live operators of every subgraph until a
// sweep changes nothing (a pass built on it reaches its own fixed point in one run). `rewrite`
// returns true when it changed the graph.
template <typename Rewrite> bool sweepToFixedPoint(CircleModel &model, Rewrite &&rewrite, int max_sweeps = 64) {
  bool changed = false;
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    bool this_sweep = forEachSubgraph(model, [&](SubgraphEditor &editor) {
      for (int i = 0; i < editor.operatorCount(); ++i)
        if (editor.alive(i))
          rewrite(editor, i);
    });
    if (!this_sweep)
      break;
    changed = true;
  }
  return changed;
}

} // namespace tico::circle_passes
