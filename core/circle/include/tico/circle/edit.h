// Editing a CircleModel without breaking its indices: the one editing API of tico, used by the
// Circle passes, the tools and anyone who rewrites a model.
//
// A Circle model refers to its parts by position: operators name tensors by index, tensors name
// buffers, operators name operator codes, control-flow operators (IF, WHILE, CALL, CALL_ONCE)
// and signatures name subgraphs, block-wise quantization names tensors. Removing or adding any
// of them shifts positions. Two levels of editing keep every reference valid:
//
//  * Whole-model edits (removeOperators, removeTensors, addTensor, replaceTensorUses,
//    addSubgraph, removeSubgraphs): each call renumbers every reference in the whole model,
//    across all subgraphs, so the model is consistent again when it returns. Removal functions
//    return an IndexMap (old index -> new index, or -1 for a removed element) so callers can
//    update indices they hold themselves. Indices given to a function must be in range;
//    out-of-range indices and edits that would leave a dangling reference (removing a tensor an
//    operator still uses, a subgraph another subgraph calls) throw tico::Error and leave the
//    model unchanged.
//  * SubgraphEditor: many local rewrites of one subgraph in one sweep (what a Circle pass does).
//    It keeps producer and consumer tables current, only marks removed operators and appends
//    new ones with an anchor, so indices stay stable until finish() drops the removed ones and
//    restores execution order.
//
// Neither level deletes what becomes unused (tensors, buffers, operator codes): compact() is the
// one place that does, after any number of edits.
#pragma once

#include "tico/circle/model.h"
#include "tico/circle/query.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tico {

using IndexMap = std::vector<int32_t>;

// ---- Operators and tensors ----------------------------------------------------------------------

// Removes operators of one subgraph (any order, duplicates ignored). Tensors stay; use
// compact() to drop the ones nothing refers to any more.
IndexMap removeOperators(CircleModel &model, uint32_t subgraph, const std::vector<uint32_t> &operators);

// Removes tensors of one subgraph and renumbers the remaining ones in operator inputs and
// outputs, subgraph inputs and outputs, the signatures of this subgraph and block-wise
// quantization records. Entries of the subgraph's inputs/outputs and signature maps that name a
// removed tensor are dropped. Throws when a remaining operator (or a block-wise quantization
// record of a remaining tensor) still uses a removed tensor.
IndexMap removeTensors(CircleModel &model, uint32_t subgraph, const std::vector<uint32_t> &tensors);

// Appends a tensor to a subgraph and returns its index.
uint32_t addTensor(CircleModel &model, uint32_t subgraph, CircleTensor tensor);

struct ReplaceUsesOptions {
  // Also redirect the subgraph's outputs and the output entries of its signatures.
  bool subgraph_outputs = true;
  // Only operators at these indices have their inputs rewritten (empty: all operators).
  std::vector<uint32_t> only_operators;
};

// Makes the uses of tensor `from` read tensor `to` instead: operator inputs (and, by default,
// subgraph outputs and signature outputs). Producers are not touched. Returns how many
// references changed.
std::size_t replaceTensorUses(CircleModel &model, uint32_t subgraph, uint32_t from, uint32_t to,
                              const ReplaceUsesOptions &options = {});

// ---- Subgraphs ------------------------------------------------------------------------------------

// Appends a subgraph and returns its index. The subgraph's own indices (tensors, operator codes,
// buffers, called subgraphs) must already refer to this model.
uint32_t addSubgraph(CircleModel &model, CircleSubGraph subgraph);

// Removes subgraphs and renumbers the subgraph references of the remaining operators and
// signatures. Signatures of removed subgraphs are removed with them. Throws when an operator of
// a remaining subgraph calls a removed one.
IndexMap removeSubgraphs(CircleModel &model, const std::vector<uint32_t> &subgraphs);

// ---- Compaction -----------------------------------------------------------------------------------

enum class CompactOrder : uint8_t {
  // The surviving elements keep their relative order (minimal change, e.g. after extraction).
  Keep,
  // Survivors are renumbered in order of first use: a subgraph's inputs, each operator's inputs
  // and outputs in execution order, its outputs, its signature maps (then tensors only
  // block-wise quantization refers to); buffers in the order tensors use them (buffer 0 first,
  // metadata last); operator codes in the order operators use them. The numbering then depends
  // only on the final graph, not on the order in which edits created elements, so different
  // rewrite schedules that reach the same graph give the same bytes.
  FirstUse,
};

struct CompactOptions {
  bool tensors = true;        // tensors no operator, subgraph I/O or signature refers to
  bool buffers = true;        // buffers no tensor or metadata entry refers to (buffer 0 stays)
  bool operator_codes = true; // operator codes no operator uses
  // Subgraphs not reachable from subgraph 0 or a signature through control-flow operators
  // (the remaining subgraphs always keep their order).
  bool subgraphs = false;
  CompactOrder order = CompactOrder::Keep;
  // Duplicate tensor names within a subgraph become "<name>_<k>" (smallest free k, in tensor
  // order); the subgraph's inputs and outputs keep their names.
  bool unique_names = false;
};

struct CompactResult {
  std::size_t tensors = 0; // dropped, and so on
  std::size_t buffers = 0;
  std::size_t operator_codes = 0;
  std::size_t subgraphs = 0;
  std::size_t renamed = 0; // tensors renamed by unique_names
  bool reordered = false;  // some survivor changed place (CompactOrder::FirstUse only)
  bool changed() const { return tensors + buffers + operator_codes + subgraphs + renamed > 0 || reordered; }
};

// Drops unused elements and renumbers every reference. Runs subgraphs first, then tensors, then
// buffers and operator codes, so elements used only by dropped ones go too; names last.
CompactResult compact(CircleModel &model, const CompactOptions &options = {});

// ---- Rewriting one subgraph --------------------------------------------------------------------

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
  circle::BuiltinOperator code(int op) const { return builtinOf(model_, graph().operators[op]); }
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
  // Neither a subgraph input nor written by a live operator, and hasTypedPayload().
  bool isConstantTensor(int32_t t) const;

  // ---- mutations ----
  void setInput(int op, std::size_t slot, int32_t t);
  void setOutput(int op, std::size_t slot, int32_t t);
  // Makes subgraph output number `position` the tensor `t` (and the output entries of this
  // subgraph's SignatureDefs that named the old tensor).
  void setGraphOutput(std::size_t position, int32_t t);
  // Points every read of `from` by a live operator at `to` (subgraph outputs are left alone).
  // Returns the number of reads changed.
  int replaceUses(int32_t from, int32_t to);
  // Points the reads of `from` by operator `op` at `to`.
  void replaceUsesIn(int op, int32_t from, int32_t to);
  // Marks `op` removed: it stops reading and writing at once, finish() drops it.
  void removeOp(int op);
  // Appends an operator that finish() will place before `anchor` (-1: at the end) or later if
  // its inputs are produced later. Returns its index.
  int addOp(CircleOperator op, int anchor);
  int addOp(circle::BuiltinOperator code, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
            circle::BuiltinOptionsUnion options, int anchor);
  // Appends a tensor (the name is kept as given; compact() with unique_names makes names unique).
  int32_t addTensor(CircleTensor tensor);
  // A new constant tensor with its own buffer.
  int32_t addConstant(circle::TensorType type, std::vector<int32_t> shape, std::shared_ptr<const TensorData> data,
                      std::string name);
  int32_t addInt32Constant(const std::vector<int32_t> &values, std::vector<int32_t> shape, std::string name);
  // A new tensor with the type and quantization of `like` and the given shape.
  int32_t addTensorLike(int32_t like, std::vector<int32_t> shape, std::string name);
  // Records a change made directly on an operator or tensor (options, shapes).
  void markChanged() { changed_ = true; }
  bool changed() const { return changed_; }

  // Drops removed operators and re-establishes execution order with a stable topological sort:
  // each appended operator goes before its anchor (or at the end), then operators move only as
  // far as their inputs require, so the original order is kept wherever the dataflow allows.
  // Throws tico::Error if the rewrites created a dataflow cycle. Returns whether anything
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
  std::vector<int32_t> producer_; // first live writer, as tensorProducers()
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

} // namespace tico
