// Cross-checks of an exported program whose parts state the same facts twice: the graph's
// input and output lists against the signature's specs, each tensor's sizes against its
// strides, and the operator-set versions against the one this reader knows.
//
// torch.export writes these consistently; a disagreement means a damaged or hand-edited file,
// and reading either side alone would build a graph that quietly disagrees with the program.
#pragma once

#include "pt2/json_schema.h"

namespace tico::pt2 {

// The aten operator set PyTorch 2.13 writes (opset_version {"aten": 10}).
constexpr int64_t kAtenOpsetVersion = 10;

// Throws tico::Error (without the file name; the frontend adds it) when the program's aten
// opset is not kAtenOpsetVersion or an opset version is not a non-negative integer.
void checkOpsetVersions(const Json &program);

// Throws tico::Error when graph.inputs / graph.outputs and signature.input_specs /
// output_specs differ in length or name different values at the same position, or when a
// tensor in graph.tensor_values has not as many sizes as strides.
void checkSignatureMatchesGraph(const Json &graph, const Json &signature);

} // namespace tico::pt2
