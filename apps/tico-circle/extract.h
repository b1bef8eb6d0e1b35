// tico-circle extract: which operators and tensors a sub-model keeps, and building it.
#pragma once

#include "tico/circle/model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tico::circle_tool {

struct ExtractSelection {
  std::vector<uint32_t> operators; // kept operators, ascending
  std::vector<int32_t> inputs;     // interface of the new subgraph
  std::vector<int32_t> outputs;
};

// Operators given as "0-10,15,20:24" (a-b inclusive, a:b end-exclusive, single indices).
// Inputs are the non-constant tensors the range reads but does not write (in first-use order);
// outputs are the tensors it writes that the rest of the subgraph (or the subgraph's outputs)
// still needs, or that nothing inside the range reads.
ExtractSelection selectOperatorRange(const CircleModel &model, uint32_t subgraph, const std::string &ranges);

// Everything needed to compute the `to` tensors from the `from` tensors: a backward walk from
// the outputs that stops at the inputs and at constants. Patterns are ECMAScript regular
// expressions matched against tensor names (anywhere in the name, or the whole name with
// `full_match`); each must match at least one tensor. Reaching a value that is neither a
// `from` tensor nor computable inside the slice (an original subgraph input) makes it an input
// too; `added_inputs` names those.
ExtractSelection selectBetweenTensors(const CircleModel &model, uint32_t subgraph,
                                      const std::vector<std::string> &from, const std::vector<std::string> &to,
                                      bool full_match, std::vector<std::string> *added_inputs);

// A copy of `model` whose subgraph 0 is `subgraph` cut down to the selection. Other subgraphs
// stay only when an operator of the slice calls them (or, with `keep_other_subgraphs`, all of
// them); signatures of the cut subgraph are dropped because its interface changed. Unused
// tensors, buffers and operator codes are compacted away.
CircleModel extractSubmodel(const CircleModel &model, uint32_t subgraph, const ExtractSelection &selection,
                            bool keep_other_subgraphs);

} // namespace tico::circle_tool
