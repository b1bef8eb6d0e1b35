// convert-gather-to-gather-nd: torch.gather(x, dim, index) reads
//   out[p0, ..., pN] = x[p0, ..., index[p0, ..., pN], ..., pN]
// (the index replaces one coordinate), while Circle's GATHER_ND reads full coordinates. The
// pass builds them — the index (as int32) for `dim`, a constant coordinate grid for every
// other dim — and concatenates them along a new last dim:
//   circle::gather_nd(x, cat([grid_0, ..., index, ..., grid_N], -1))
// A grid is a stride-0 view of one arange, so it costs one small buffer. Static shapes only.
#include "legalize_support.h"
#include "passes.h"

#include <limits>

namespace tico::legalize {
namespace {

// [*index_shape, 1] int32 whose value at every position is its coordinate along `axis`.
std::shared_ptr<const TensorData> coordinateGrid(const std::vector<int64_t> &index_shape, std::size_t axis) {
  int64_t n = index_shape[axis];
  std::vector<int32_t> values(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    values[static_cast<std::size_t>(i)] = static_cast<int32_t>(i);
  auto grid = std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, {n}, values));
  grid->sizes = index_shape;
  grid->sizes.push_back(1);
  grid->strides.assign(grid->sizes.size(), 0);
  grid->strides[axis] = 1;
  return grid;
}

class ConvertGatherToGatherNd final : public Pass {
public:
  bool run(Graph &graph, PassContext &) override {
    bool changed = false;
    for (Node *node : snapshot(graph))
      if (isOp(*node, {"aten::gather.default"}))
        changed |= convert(graph, *node);
    return changed;
  }

private:
  static bool convert(Graph &graph, Node &node) {
    Value *x = node.input(0);
    Value *index = node.input(2);
    if (node.arg("sparse_grad").asBool() || !isStatic(x->shape()) || !isStatic(index->shape()) ||
        x->rank() != index->rank() || x->rank() == 0)
      return false;
    if (index->dtype() != DType::Int64 && index->dtype() != DType::Int32)
      return false;
    auto dim = wrapDim(node.arg("dim").asInt(), x->rank());
    if (!dim)
      return false;
    std::vector<int64_t> index_shape = hintSizes(index->shape());
    for (std::size_t a = 0; a < index_shape.size(); ++a)
      if (static_cast<int64_t>(a) != *dim && index_shape[a] > x->shape()[a].value())
        return false; // PyTorch rejects this too
    if (index_shape.size() > 0 && numElementsHint(x->shape()) > std::numeric_limits<int32_t>::max())
      return false;

    Builder b(graph, &node, node.name());
    Shape column = index->shape();
    column.push_back(1);
    std::vector<Value *> coordinates;
    for (std::size_t a = 0; a < index_shape.size(); ++a) {
      if (static_cast<int64_t>(a) == *dim) {
        Value *i32 = b.cast(index, DType::Int32, "_index_int32");
        coordinates.push_back(b.unsqueeze(i32, static_cast<int64_t>(index_shape.size()), "_index_column"));
      } else {
        coordinates.push_back(b.constant(coordinateGrid(index_shape, a), "_grid" + std::to_string(a)));
      }
    }
    Shape full = index->shape();
    full.push_back(static_cast<int64_t>(index_shape.size()));
    Value *indices = b.value(OpKey("aten", "cat"),
                             {Argument::values(coordinates), Argument::integer(static_cast<int64_t>(index_shape.size()))},
                             DType::Int32, full, "_coordinates");
    Value *gathered = b.value(OpKey("circle", "gather_nd"), {Argument::value(x), Argument::value(indices)}, x->dtype(),
                              index->shape(), "_gather_nd");
    replaceAndErase(graph, &node, node.output(), gathered);
    return true;
  }
};

} // namespace

void registerConvertGatherToGatherNd(Registrar &r) {
  r.addPass(simplePass<ConvertGatherToGatherNd>(
      "convert-gather-to-gather-nd", "aten::gather -> circle::gather_nd over full int32 coordinates"));
}

} // namespace tico::legalize
