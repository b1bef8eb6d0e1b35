// The layout family of decompositions (the raw torch.export forms of view, reorder and
// batched-product ops that have no Circle lowering of their own), one source file per group,
// collected by layoutRules() in layout_rules.cpp.
#pragma once

#include "decomposition.h"

#include <optional>
#include <vector>

namespace tico::decompose {

std::vector<Rule> layoutMatmulRules();   // addbmm, baddbmm, addmv, outer, ger (layout_matmul.cpp)
std::vector<Rule> layoutReorderRules();  // movedim, moveaxis, swapaxes, swapdims (layout_reorder.cpp)
std::vector<Rule> layoutViewRules();     // expand_as, type_as, broadcast_to, fill.Tensor, as_strided (layout_view.cpp)
std::vector<Rule> layoutSliceRules();    // narrow, roll, diff (layout_slice.cpp)
std::vector<Rule> layoutEinsumRules();   // einsum of two operands (layout_einsum.cpp)
std::vector<Rule> layoutGatherRules();   // take_along_dim (layout_gather.cpp)
std::vector<Rule> layoutUpsampleRules(); // upsample_linear1d (layout_upsample_linear.cpp)
std::vector<Rule> layoutBicubicRules();  // upsample_bicubic2d (layout_upsample_bicubic.cpp)
std::vector<Rule> layoutNearestRules();  // upsample_nearest1d, _upsample_nearest_exact1d (layout_upsample_nearest.cpp)

// The ints of an int[] / SymInt[] argument, a single int standing for a one-element list (as
// SymInt[1] accepts); nullopt when an element is symbolic or the argument is not a list.
std::optional<std::vector<int64_t>> staticInts(const Argument &arg);

// The diagonal (offset, dims d1 and d2) of a statically shaped x as the last dim of the result,
// the other dims in order (convenience.cpp); null when it cannot be built (symbolic or empty).
Value *diagonalOf(Builder &b, Value *x, int64_t offset, int64_t d1, int64_t d2);

} // namespace tico::decompose
