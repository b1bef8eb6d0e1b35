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
#include "passes.h"

namespace tico::passes {
namespace {

bool isConstMatrix(const Value *v) { return v->isConstant() && v->rank() == 2; }

struct Enabled {
  bool lhs = false, rhs = true, single_batch_bmm = false;
};

class ConvertMatmulToLinearPass final : public Pass {
public:
  explicit ConvertMatmulToLinearPass(Enabled enabled) : enabled_(enabled) {}

  bool run(Graph &graph, PassContext &) override {
    const bool rhs_const = enabled_.rhs;
    const bool lhs_const = enabled_.lhs;
    const bool single_batch_bmm = enabled_.single_batch_bmm;
    bool changed = false;
    for (Node *node : snapshot(graph)) {
      bool mm = isOp(*node, {"aten::mm.default"});
      bool matmul = isOp(*node, {"aten::matmul.default"});
      bool bmm = isOp(*node, {"aten::bmm.default"});
      if (!mm && !matmul && !bmm)
        continue;
      Value *a = node->input(0);
      Value *b = node->input(1);
      Value *out = node->output();
      if (a->dtype() != DType::Float32 || b->dtype() != DType::Float32)
        continue;
      Value *replacement = nullptr;
      if ((mm || matmul) && rhs_const && isConstMatrix(b) && a->rank() >= 2 &&
          (matmul || a->rank() == 2)) {
        replacement = insertLinear(graph, node, a, transposedConstant(graph, b), nullptr, out->shape(), out->dtype());
      } else if (mm && lhs_const && isConstMatrix(a) && b->rank() == 2) {
        Value *bt = insertPermute(graph, node, b, {1, 0});
        Shape lin_shape{out->shape()[1], out->shape()[0]};
        Value *lin = insertLinear(graph, node, bt, a, nullptr, lin_shape, out->dtype());
        replacement = insertPermute(graph, node, lin, {1, 0});
      } else if (bmm && single_batch_bmm && a->isConstant() && a->rank() == 3 &&
                 b->rank() == 3 && a->shape()[0] == Dim(1) && b->shape()[0] == Dim(1)) {
        Value *weight = graph.addConstant(a->name() + "_0", selectView(*a->constant(), 0, 0));
        Value *bt = insertPermute(graph, node, b, {0, 2, 1});
        Shape lin_shape{1, out->shape()[2], out->shape()[1]};
        Value *lin = insertLinear(graph, node, bt, weight, nullptr, lin_shape, out->dtype());
        replacement = insertPermute(graph, node, lin, {0, 2, 1});
      }
      if (!replacement)
        continue;
      replaceAndErase(graph, node, replacement);
      changed = true;
    }
    return changed;
  }

private:
  Enabled enabled_;
};

} // namespace

void registerConvertMatmulToLinear(Registrar &r) {
  PassSpec spec;
  spec.name = "convert-matmul-to-linear";
  spec.summary = "Rewrite mm/matmul/bmm with a constant operand into linear (options; config convert_*_const_*_to_fc)";
  spec.options = {
      OptionSpec{"rhs_const", OptionType::Bool, true,
                 "rewrite mm/matmul with a constant 2-D right operand (config convert_rhs_const_mm_to_fc)"},
      OptionSpec{"lhs_const", OptionType::Bool, false,
                 "rewrite mm with a constant left operand (config convert_lhs_const_mm_to_fc)"},
      OptionSpec{"single_batch_lhs_const_bmm", OptionType::Bool, false,
                 "rewrite single-batch bmm with a constant left operand (config "
                 "convert_single_batch_lhs_const_bmm_to_fc)"},
  };
  spec.create = [](const Options &options) -> std::unique_ptr<Pass> {
    Enabled enabled;
    enabled.rhs = options.getBool("rhs_const");
    enabled.lhs = options.getBool("lhs_const");
    enabled.single_batch_bmm = options.getBool("single_batch_lhs_const_bmm");
    return std::make_unique<ConvertMatmulToLinearPass>(enabled);
  };
  r.addPass(std::move(spec));
}

} // namespace tico::passes
