// Editing a CircleModel without breaking its indices.
//
// A Circle model refers to its parts by position: operators name tensors by index, tensors name
// buffers, operators name operator codes, control-flow operators (IF, WHILE, CALL, CALL_ONCE)
// and signatures name subgraphs, block-wise quantization names tensors. Removing or adding any
// of them shifts positions; the functions here do the removal and renumber every reference in
// the whole model, across all subgraphs, so the result is consistent again.
//
// Removal functions return an IndexMap (old index -> new index, or -1 for a removed element)
// so callers can update indices they hold themselves. Indices given to a function must be in
// range; out-of-range indices and edits that would leave a dangling reference (removing a
// tensor an operator still uses, a subgraph another subgraph calls) throw tico::Error and leave
// the model unchanged.
#pragma once

#include "tico/circle/model.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace tico {

using IndexMap = std::vector<int32_t>;

// ---- Queries -----------------------------------------------------------------------------------

// The operator that writes each tensor of `subgraph` (-1: none; the first one when several do).
std::vector<int32_t> tensorProducers(const CircleSubGraph &subgraph);
// The operators that read each tensor (in operator order, an operator once per tensor).
std::vector<std::vector<uint32_t>> tensorConsumers(const CircleSubGraph &subgraph);
// Whether the tensor's buffer holds data.
bool isConstantTensor(const CircleModel &model, const CircleTensor &tensor);

// Subgraph indices an operator refers to through its options (IfOptions, WhileOptions,
// CallOptions, CallOnceOptions), in option field order. Unlike the options fields these are
// plain integers; negative values are returned as they are.
std::vector<int64_t> calledSubgraphs(const CircleOperator &op);
// Calls `visit(index)` for each subgraph reference of `op`, allowing it to change the value.
void forEachSubgraphReference(CircleOperator &op, const std::function<void(int64_t &)> &visit);

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

struct CompactOptions {
  bool tensors = true;        // tensors no operator, subgraph I/O or signature refers to
  bool buffers = true;        // buffers no tensor or metadata entry refers to (buffer 0 stays)
  bool operator_codes = true; // operator codes no operator uses
  // Subgraphs not reachable from subgraph 0 or a signature through control-flow operators.
  bool subgraphs = false;
};

struct CompactResult {
  std::size_t tensors = 0;
  std::size_t buffers = 0;
  std::size_t operator_codes = 0;
  std::size_t subgraphs = 0;
  bool changed() const { return tensors + buffers + operator_codes + subgraphs > 0; }
};

// Drops unused elements and renumbers every reference. Runs subgraphs first, then tensors, then
// buffers and operator codes, so elements used only by dropped ones go too.
CompactResult compact(CircleModel &model, const CompactOptions &options = {});

} // namespace tico
