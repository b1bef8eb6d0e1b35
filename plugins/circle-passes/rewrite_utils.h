// Rewrite steps several passes share: taking an operator out of the dataflow without touching
// the subgraph interface, building options, naming new tensors, reading small constant operands.
#pragma once

#include "constants.h"
#include "model_query.h"

#include "tico/circle/edit.h"

#include <optional>
#include <string>
#include <vector>

namespace tico::circle_passes {

template <typename T> circle::BuiltinOptionsUnion makeOptions(T table) {
  circle::BuiltinOptionsUnion u;
  u.Set(std::move(table));
  return u;
}

// Makes every reader of `from` read `to` instead, so that `from`'s producer can be dropped.
// Subgraph outputs are never renamed or re-pointed: when `from` is one, the producer of `to`
// is made to write `from` directly instead, which is only possible when `to` is an
// intermediate tensor (not an input, constant or output) read by nothing but `dying_op` and
// with the same contract as `from`. Returns false (and changes nothing) when impossible.
bool redirect(SubgraphEditor &editor, int32_t from, int32_t to, int dying_op);

// Removes single-output operator `op` whose output equals its input `replacement`.
bool bypassOp(SubgraphEditor &editor, int op, int32_t replacement);

// "<name of tensor>/<suffix>": names of new tensors are derived from the tensor they stand
// for, so that they are the same whichever schedule created them.
std::string derivedName(const SubgraphEditor &editor, int32_t tensor, const std::string &suffix);

// The constant int vector of operand `t` (int32 or int64), or nullopt.
std::optional<std::vector<int64_t>> constantInts(const SubgraphEditor &editor, int32_t t);
// A scalar (one-element) float constant, or nullopt.
std::optional<double> constantScalar(const SubgraphEditor &editor, int32_t t);

// Axis in [-rank, rank) normalised to [0, rank), or nullopt.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

// Inverse permutation; the composition p∘q (out[i] = q[p[i]]: first q then p applied to the
// result of q... see .cpp); identity test.
std::vector<int64_t> inversePermutation(const std::vector<int64_t> &perm);
bool isPermutation(const std::vector<int64_t> &perm);
bool isIdentityPermutation(const std::vector<int64_t> &perm);
// The permutation of TRANSPOSE(TRANSPOSE(x, first), second) as one TRANSPOSE of x.
std::vector<int64_t> composeTransposes(const std::vector<int64_t> &first, const std::vector<int64_t> &second);

// Shape of `shape` permuted: out[i] = shape[perm[i]].
template <typename T> std::vector<T> permuted(const std::vector<T> &shape, const std::vector<int64_t> &perm) {
  std::vector<T> out(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    out[i] = shape[perm[i]];
  return out;
}

// The permutation of a TRANSPOSE operator with a constant perm, or nullopt.
std::optional<std::vector<int64_t>> transposePermutation(const SubgraphEditor &editor, int op);

// Replaces operator `op` by a new operator of `code` writing the same outputs (placed where
// `op` was). Returns the new operator's index.
int replaceOp(SubgraphEditor &editor, int op, BuiltinOperator code, std::vector<int32_t> inputs,
              circle::BuiltinOptionsUnion options);

// Makes subgraph output number `position` a new tensor written by an identity copy of the
// tensor it was (TRANSPOSE with the identity permutation; RESHAPE for rank 0). The copy takes
// over the output's name, shape and signature, so the interface keeps its tensor names; the
// original tensor keeps its readers. Returns the copy.
int32_t copyGraphOutput(SubgraphEditor &editor, std::size_t position);

// Options for a new RESHAPE to the static `shape`, and the int32 shape operand it reads.
int addReshape(SubgraphEditor &editor, int32_t input, int32_t output, const std::vector<int32_t> &shape, int anchor);

} // namespace tico::circle_passes
