// libtico-decompose: decompositions of composite ATen ops into ops the Circle lowerings take.
//
// decompose-composite-ops is the stage that accepts raw torch.export output (the ops
// run_decompositions() would have expanded and that have no lowering); four others are the
// original converter's Decompose* passes, scheduled in its main bundle (docs/passes.md), and
// decompose-cumsum serves runtimes without a CUMSUM kernel.
#include "decomposition.h"

#include "tico/plugin/plugin.h"

namespace {

template <typename... Families> std::vector<tico::decompose::Rule> concat(Families... families) {
  std::vector<tico::decompose::Rule> all;
  for (auto &family : {families...})
    all.insert(all.end(), family.begin(), family.end());
  return all;
}

void registerAll(tico::Registrar &r) {
  using namespace tico::decompose;
  registerDecomposePass(r, "decompose-addmm", "Rewrite addmm into mm, mul and add (DecomposeAddmm)", addmmRules());
  registerDecomposePass(r, "decompose-slice-scatter", "Rewrite slice_scatter into slices and cat (DecomposeSliceScatter)",
                        sliceScatterRules());
  registerDecomposePass(r, "decompose-group-norm",
                        "Rewrite layer/group norm (and native_ forms) into mean, sub, pow, rsqrt, mul, add (DecomposeGroupNorm)",
                        normRules());
  registerDecomposePass(r, "decompose-batch-norm",
                        "Rewrite inference batch norm into a per-channel mul and add with folded constants (DecomposeBatchNorm)",
                        batchNormRules());
  registerDecomposePass(r, "decompose-cumsum",
                        "Rewrite cumsum of float32 or bool-derived values into a matmul with a triangular ones matrix "
                        "(for runtimes without CUMSUM, such as onert)",
                        cumsumRules());
  registerDecomposePass(r, "decompose-composite-ops",
                        "Decompose the composite ops torch.export.export records that no lowering takes (norms, sdpa, "
                        "dropout, slice_scatter, chunk, rnn cells and sequences, softplus, mish, alias spellings, ...)",
                        concat(normRules(), batchNormRules(), attentionRules(), dropoutRules(), activationRules(),
                               sliceScatterRules(), chunkRules(), rnnCellRules(), rnnSequenceRules(), repeatInterleaveRules(), mathRules(),
                               layoutRules(), windowRules(), convenienceRules(), aliasRules(), arrayOpRules(),
                               rank0Rules(), mathCompositeRules()));
}

} // namespace

TICO_PLUGIN("decompose", "0.1.0", "Apache-2.0", registerAll)
