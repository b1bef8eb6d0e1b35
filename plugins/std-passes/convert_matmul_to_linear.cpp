// convert-matmul-to-linear: matrix products with a constant operand become linear (and so
// FULLY_CONNECTED, whose constant weights Circle tools quantize per channel), as selected by
// the pass options (config aliases in parentheses):
//   rhs_const (default on; convert_rhs_const_mm_to_fc):       mm(x, C) / matmul(x, C), C 2-D
//       -> linear(x, C^T)
//   lhs_const (convert_lhs_const_mm_to_fc):                   mm(C, x)
//       -> permute(linear(permute(x), C))
//   single_batch_lhs_const_bmm
//     (convert_single_batch_lhs_const_bmm_to_fc):             bmm(C, x), C [1, M, K], x [1, K, N]
//       -> permute(linear(permute(x), C[0]), [0, 2, 1])
// C^T and C[0] are zero-copy views of C. Only float32 products are rewritten (FULLY_CONNECTED
// computes in float32).
//
// An option given to one entry applies to that entry only, so one manifest can keep, e.g.,
// constant-LHS products of a later stage intact.
#include "constant_views.h"
#include "linear_builder.h"
#include "pass_support.h"
#include "sweep_with_options.h"
#include "passes.h"

namespace tico::passes {
namespace {

bool isConstMatrix(const Value *v) { return v->isConstant() && v->rank() == 2; }

struct Enabled {
  bool lhs = false, rhs = true, single_batch_bmm = false;
};

bool matmulToLinear(Node &matched, rewrite::Rewriter &rewriter, Enabled enabled) {
  Node *node = &matched;
  Graph &graph = rewriter.graph();
  const bool mm = isOp(*node, {"aten::mm.default"});
  const bool matmul = isOp(*node, {"aten::matmul.default"});
  const bool bmm = isOp(*node, {"aten::bmm.default"});
  Value *a = node->input(0);
  Value *b = node->input(1);
  Value *out = node->output();
  if (a->dtype() != DType::Float32 || b->dtype() != DType::Float32)
    return false;
  Value *replacement = nullptr;
  if ((mm || matmul) && enabled.rhs && isConstMatrix(b) && a->rank() >= 2 && (matmul || a->rank() == 2)) {
    replacement = insertLinear(rewriter, node, a, transposedConstant(graph, b), nullptr, out->shape(), out->dtype());
  } else if (mm && enabled.lhs && isConstMatrix(a) && b->rank() == 2) {
    Value *bt = insertPermute(rewriter, node, b, {1, 0});
    Shape lin_shape{out->shape()[1], out->shape()[0]};
    Value *lin = insertLinear(rewriter, node, bt, a, nullptr, lin_shape, out->dtype());
    replacement = insertPermute(rewriter, node, lin, {1, 0});
  } else if (bmm && enabled.single_batch_bmm && a->isConstant() && a->rank() == 3 && b->rank() == 3 &&
             a->shape()[0] == Dim(1) && b->shape()[0] == Dim(1)) {
    Value *weight = graph.addConstant(a->name() + "_0", selectView(*a->constant(), 0, 0));
    Value *bt = insertPermute(rewriter, node, b, {0, 2, 1});
    Shape lin_shape{1, out->shape()[2], out->shape()[1]};
    Value *lin = insertLinear(rewriter, node, bt, weight, nullptr, lin_shape, out->dtype());
    replacement = insertPermute(rewriter, node, lin, {0, 2, 1});
  }
  if (!replacement)
    return false;
  rewriter.replaceNode(node, replacement);
  return true;
}

} // namespace

void registerConvertMatmulToLinear(Registrar &r) {
  r.addPass(sweepPass(
      "convert-matmul-to-linear",
      "Rewrite mm/matmul/bmm with a constant operand into linear (options; config convert_*_const_*_to_fc)",
      {
          OptionSpec{"rhs_const", OptionType::Bool, true,
                     "rewrite mm/matmul with a constant 2-D right operand (config convert_rhs_const_mm_to_fc)"},
          OptionSpec{"lhs_const", OptionType::Bool, false,
                     "rewrite mm with a constant left operand (config convert_lhs_const_mm_to_fc)"},
          OptionSpec{"single_batch_lhs_const_bmm", OptionType::Bool, false,
                     "rewrite single-batch bmm with a constant left operand (config "
                     "convert_single_batch_lhs_const_bmm_to_fc)"},
      },
      {"aten::mm.default", "aten::matmul.default", "aten::bmm.default"},
      [](const Options &options) -> rewrite::RewriteFn {
        Enabled enabled;
        enabled.rhs = options.getBool("rhs_const");
        enabled.lhs = options.getBool("lhs_const");
        enabled.single_batch_bmm = options.getBool("single_batch_lhs_const_bmm");
        return [enabled](Node &node, rewrite::Rewriter &rewriter) { return matmulToLinear(node, rewriter, enabled); };
      }));
}

} // namespace tico::passes
