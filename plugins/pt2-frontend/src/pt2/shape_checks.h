// Shapes of the contracting ops (linear, mm, addmm, bmm, convolution) checked against each other
// at import, where both sides are static.
//
// torch.export records every value's shape; a hand-edited or damaged program can record shapes
// no computation produces (tracker issue 31: an input recorded as [2, 17] fed into a Linear of
// 16 inputs converted, verified and failed only when run). These ops are where such a record
// meets a weight, so that is where it is caught, naming the node and both shapes. Symbolic
// dimensions are left to the runtime.
#pragma once

#include "tico/ir/graph.h"

namespace tico::pt2 {

// Throws tico::Error (without the file name; the frontend adds it) on the first mismatch.
void checkContractionShapes(const Graph &graph);

} // namespace tico::pt2
