// convert-expand-to-slice-cat (ConvertExpandToSliceCat), off unless its option `enabled` is set
// (config alias convert_expand_to_slice_cat): the KV-cache head repetition of grouped-query attention,
//     x[B,H,S,D] -reshape-> [B,H,1,S,D] -expand-> [B,H,n,S,D] -reshape-> [B,H*n,S,D]
// becomes slices and concatenations along the head dim,
//     cat([cat([x[:, h:h+1]] * n, 1) for h in 0..H), 1)   (shape [B,H*n,S,D])
// which the closing reshape then reads unchanged. Pure data movement: same values, for
// backends without BROADCAST_TO of rank 5. The expand must feed only that reshape.
#include "pass_support.h"
#include "sweep_with_options.h"
#include "passes.h"
#include "reshape_match.h"

namespace tico::passes {
namespace {

bool expandToSliceCat(Node &matched, rewrite::Rewriter &rewriter) {
  Node *expand = &matched;
  Graph &graph = rewriter.graph();
  if (!isTensorValue(expand->arg(0)) || !hasSingleUse(graph, expand->output()))
    return false;
  Node *post = expand->output()->users().front();
  Node *pre = expand->input(0)->producer();
  if (!isReshape(*post) || !pre || !isReshape(*pre))
    return false;
  Value *x = pre->input(0);
  const Shape &xs = x->shape(), &ps = pre->output()->shape(), &es = expand->output()->shape();
  if (xs.size() != 4 || ps.size() != 5 || es.size() != 5)
    return false;
  // [B,H,S,D] -> [B,H,1,S,D] -> [B,H,n,S,D]
  if (ps != Shape{xs[0], xs[1], Dim(1), xs[2], xs[3]} || es[0] != ps[0] || es[1] != ps[1] || es[3] != ps[3] ||
      es[4] != ps[4] || !es[2].isStatic() || es[2].value() <= 1 || !xs[1].isStatic())
    return false;
  const int64_t heads = xs[1].value(), repeats = es[2].value();
  const Shape &out = post->output()->shape();
  if (out.size() != 4 || out[1] != Dim(heads * repeats) || out[0] != xs[0] || out[2] != xs[2] || out[3] != xs[3])
    return false;
  Builder b = rewriter.builderFor(*expand);
  std::vector<Value *> groups;
  for (int64_t h = 0; h < heads; ++h) {
    Value *head = b.make("aten::slice.Tensor", {A(x), A(int64_t{1}), A(h), A(h + 1)});
    std::vector<Value *> copies(static_cast<std::size_t>(repeats), head);
    groups.push_back(b.make("aten::cat.default", {Argument::values(copies), A(int64_t{1})}));
  }
  Value *all = b.make("aten::cat.default", {Argument::values(groups), A(int64_t{1})});
  // The closing reshape is the expand's only reader.
  rewriter.replaceAllUsesWith(expand->output(), all);
  rewriter.eraseDeadChain(expand->output());
  return true;
}

} // namespace

void registerConvertExpandToSliceCat(Registrar &r) {
  r.addPass(sweepPass(
      "convert-expand-to-slice-cat",
      "Rewrite the GQA key/value head repetition (reshape+expand+reshape) as slices and cats "
      "(option enabled; config convert_expand_to_slice_cat)",
      {OptionSpec{"enabled", OptionType::Bool, false, "rewrite at all (off by default, as in the original converter)"}},
      {"aten::expand.default", "aten::expand_copy.default"}, [](const Options &o) -> rewrite::RewriteFn {
        if (!o.getBool("enabled"))
          return [](Node &, rewrite::Rewriter &) { return false; };
        return expandToSliceCat;
      }));
}

} // namespace tico::passes
