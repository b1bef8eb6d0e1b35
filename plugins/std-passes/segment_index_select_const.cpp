// segment-index-select-const (SegmentIndexSelectConst): index_select(x, d, C) with a constant
// index C of n >= 2 elements becomes cat([index_select(x, d, [C[0]]), ..., index_select(x, d,
// [C[n-1]])], d), so lower-index-select-to-slice can turn each piece into a slice (NPUs handle
// slices better than gathers). Each single-element index is a new constant. `max_indices`
// (0 = no limit, as in the original) bounds how many pieces one index_select may become.
#include "constant_index.h"
#include "pass_support.h"
#include "passes.h"
#include "type_rules.h"

namespace tico::passes {
namespace {

class SegmentIndexSelectConstPass final : public Pass {
public:
  explicit SegmentIndexSelectConstPass(int64_t max_indices) : max_indices_(max_indices) {}

  bool run(Graph &graph, PassContext &context) override {
    bool changed = false;
    for (Node *node : snapshot(graph)) {
      if (!isOp(*node, {"aten::index_select.default"}) || !isTensorValue(node->arg(2)))
        continue;
      Value *x = node->input(0);
      Value *index = node->input(2);
      auto values = constantIndices(index);
      if (!values || values->size() < 2 || index->rank() != 1)
        continue;
      if (max_indices_ > 0 && static_cast<int64_t>(values->size()) > max_indices_)
        continue;
      const int64_t dim = normalizeDim(node->arg(1).asInt(), x->rank());
      Builder b(graph, context.registry(), node, node->name());
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
      replaceAndErase(graph, node, cat);
      changed = true;
    }
    return changed;
  }

private:
  int64_t max_indices_;
};

} // namespace

void registerSegmentIndexSelectConst(Registrar &r) {
  PassSpec spec;
  spec.name = "segment-index-select-const";
  spec.summary = "Split index_select with a constant multi-element index into single-index pieces + cat";
  spec.options = {OptionSpec{"max_indices", OptionType::Int, int64_t{0},
                             "largest index count to segment (0: no limit)"}};
  spec.create = [](const Options &o) -> std::unique_ptr<Pass> {
    return std::make_unique<SegmentIndexSelectConstPass>(o.getInt("max_indices"));
  };
  r.addPass(std::move(spec));
}

} // namespace tico::passes
