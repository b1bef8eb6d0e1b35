// The `circle_custom::` ops of the original converter (its Python package registers them with
// torch.library when imported, so a program exported with it imported can contain them) and
// their `circle::` counterparts.
//
// Both families are channels-last Circle operators with PyTorch-style attributes; they differ
// in spelling: circle_custom's schemas name the input `input_`, leave most attributes `None`
// (their kernels substitute the defaults), carry arguments the Circle operator ignores
// (`groups`, instance_norm's running statistics and momentum) and a few restrictions their
// kernels enforce. mapCircleCustomOp spells one circle_custom node as the circle:: op with the
// same semantics, or says why it has none. The convert-circle-custom-ops pass (plugin
// circle-legalize) rewrites the nodes with it, the evaluator (plugin aten-eval) runs the
// circle:: kernel on the mapped arguments, and the lowering plugin reports the reasons.
//
// Shared as a small static library by those three plugins; free of LibTorch and spdlog.
#pragma once

#include "tico/ir/node.h"

#include <array>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tico::circle_ops {

// Schemas of every circle_custom op, as PyTorch prints them for the original package
// (tico==0.3.0), so the .pt2 frontend matches arguments by name and fills the defaults.
extern const std::array<std::string_view, 18> kCircleCustomSchemas;

// The circle:: op and its arguments, named as the circle:: schema names them, every
// attribute explicit.
struct CircleCall {
  OpKey op;
  std::vector<NamedArg> args;
};

// The circle:: equivalent of a circle_custom node, or the reason there is none (a restriction
// of the original op, or an op tico cannot express, such as the MX quantization ops).
std::variant<CircleCall, std::string> mapCircleCustomOp(const Node &node);

inline bool isCircleCustom(const OpKey &op) { return op.ns == "circle_custom"; }

} // namespace tico::circle_ops
