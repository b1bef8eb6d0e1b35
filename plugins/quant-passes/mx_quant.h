// MX (microscaling) quantization support of the quant-passes plugin: reading the original
// converter's circle_custom MX ops (mx_quant.cpp has the semantics and the refusals).
#pragma once

#include "tico/ir/node.h"
#include "tico/ir/quant_params.h"
#include "tico/plugin/registry.h"
#include "tico/rewrite/pattern.h"

#include <memory>
#include <string>

namespace tico::quant_passes {

// What an mx_fake_quantize / quantize_mx / dequantize_mx node asks for: the Circle format and
// the axis (made non-negative). Errors naming the node and `pass` for formats without a Circle
// type, a shared_exp_method other than "max", a round other than "nearest", an axis outside
// the rank and a non-float32 input.
struct MxNodeParams {
  MxFormat format = MxFormat::Int8;
  int64_t axis = 0;
};
MxNodeParams mxNodeParams(const Node &node, const std::string &pass);
QuantParams mxQuantParams(const MxNodeParams &p);

// decompose-fake-quantize's pattern for circle_custom::mx_fake_quantize.
std::unique_ptr<rewrite::Pattern> makeDecomposeMxPattern();

// The pass fold-mx-quant-ops.
void registerFoldMxQuantOps(Registrar &r);

} // namespace tico::quant_passes
