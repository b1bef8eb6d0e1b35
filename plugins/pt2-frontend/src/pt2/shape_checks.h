// The recorded shapes of a program's nodes checked against each other at import, where they are
// static: the contracting ops (linear, mm, addmm, bmm, convolution) against their weights, the
// broadcasting elementwise ops, reshapes (element counts), permutes, expands and concatenations.
//
// torch.export records every value's shape; a hand-edited or damaged program can record shapes
// no computation produces (tracker issue 31: an input recorded as [2, 17] fed into a Linear of
// 16 inputs converted, verified and failed only when run). The lowerings and the Circle file
// trust these records, so a record that disagrees with its producer's inputs is caught here,
// naming the node and both shapes. Symbolic dimensions are left to the runtime.
#pragma once

#include "tico/ir/graph.h"

namespace tico::pt2 {

// Throws tico::Error (without the file name; the frontend adds it) on the first mismatch.
void checkRecordedShapes(const Graph &graph);

} // namespace tico::pt2
