// segment-index-select-const (SegmentIndexSelectConst): index_select(x, d, C) with a constant
// index C of n >= 2 elements becomes cat([index_select(x, d, [C[0]]), ..., index_select(x, d,
// [C[n-1]])], d), so lower-index-select-to-slice can turn each piece into a slice (NPUs handle
// slices better than gathers). Each single-element index is a new constant. `max_indices`
// (0 = no limit, as in the original) bounds how many pieces one index_select may become.
#include "constant_index.h"
#include "pass_support.h"
#include "sweep_with_options.h"
#include "passes.h"
#include "type_rules.h"

namespace tico::passes {
namespace {

// `max_indices` is the option of the same name (0: no limit).
bool segmentIndexSelect(Node &matched, rewrite::Rewriter &rewriter, int64_t max_indices) {
  Node *node = &matched;
  if (!isTensorValue(node->arg(2)))
    return false;
  Value *x = node->input(0);
  Value *index = node->input(2);
  auto values = constantIndices(index);
  if (!values || values->size() < 2 || index->rank() != 1)
    return false;
  if (max_indices > 0 && static_cast<int64_t>(values->size()) > max_indices)
    return false;
  const int64_t dim = normalizeDim(node->arg(1).asInt(), x->rank());
  Builder b = rewriter.builderFor(*node);
  std::vector<Value *> pieces;
  for (int64_t i : *values) {
    auto data = index->dtype() == DType::Int64
                    ? std::make_shared<TensorData>(TensorData::fromVector(DType::Int64, {1}, std::vector<int64_t>{i}))
                    : std::make_shared<TensorData>(
                          TensorData::fromVector(DType::Int32, {1}, std::vector<int32_t>{static_cast<int32_t>(i)}));
    Value *one = b.constant(data, "_index");
    pieces.push_back(b.make("aten::index_select.default", {A(x), A(dim), A(one)}));
  }
  Value *cat = b.make("aten::cat.default", {Argument::values(pieces), A(dim)});
  rewriter.replaceNode(node, cat);
  return true;
}

} // namespace

void registerSegmentIndexSelectConst(Registrar &r) {
  r.addPass(sweepPass(
      "segment-index-select-const",
      "Split index_select with a constant multi-element index into single-index pieces + cat",
      {OptionSpec{"max_indices", OptionType::Int, int64_t{0}, "largest index count to segment (0: no limit)"}},
      {"aten::index_select.default"}, [](const Options &o) -> rewrite::RewriteFn {
        return [max_indices = o.getInt("max_indices")](Node &node, rewrite::Rewriter &rewriter) {
          return segmentIndexSelect(node, rewriter, max_indices);
        };
      }));
}

} // namespace tico::passes
