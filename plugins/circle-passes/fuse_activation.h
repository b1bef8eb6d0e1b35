// Fusing a standalone activation operator into the fused_activation_function of its producer,
// shared by `fuse-activation-function` and `fuse-composite-ops`.
#pragma once

#include "model_query.h"

#include "tico/circle/edit.h"
#include "tico/pass/options.h"

#include <vector>

namespace tico::circle_passes {

struct ActivationFusionPolicy {
  // Neither onert nor TFLite execute a fused TANH (onert rejects the model); opt-in for
  // runtimes that do.
  bool allow_tanh = false;
  // onert ignores CONCATENATION's fused activation (wrong results) and TFLite rejects it;
  // opt-in for runtimes that honour it.
  bool allow_concatenation = false;
};

// When operator `op` is RELU / RELU6 / RELU_N1_TO_1 / TANH reading the only use of a float32
// result of ADD, SUB, MUL, DIV, CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, TRANSPOSE_CONV,
// AVERAGE/MAX/L2_POOL_2D (or CONCATENATION), folds it into that producer, which then writes
// the activation's output tensor. Returns true when it did.
bool fuseActivationIntoProducer(SubgraphEditor &editor, int op, const ActivationFusionPolicy &policy);

// The options above as pass options (allow_tanh, allow_concatenation).
std::vector<OptionSpec> activationFusionOptions();

} // namespace tico::circle_passes
