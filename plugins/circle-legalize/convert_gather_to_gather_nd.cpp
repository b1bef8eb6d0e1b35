// convert-gather-to-gather-nd: torch.gather(x, dim, index) reads
//   out[p0, ..., pN] = x[p0, ..., index[p0, ..., pN], ..., pN]
// (the index replaces one coordinate). The pass keeps the original's name, but instead of
// Circle's GATHER_ND (which onert's CPU backend does not implement) it addresses x as a flat
// vector: the linear offset of that element is
//   index * stride(dim) + sum over the other dims a of p_a * stride(a),
// so the result is a one-index GATHER of the flattened x:
//   aten::index.Tensor(reshape(x, [numel]), [mul(int32(index), stride(dim)) + offsets])
// `offsets` is a constant of the index's shape with `dim` kept at size 1 (it broadcasts).
// Everything stays ATen, so the evaluator can run the rewritten graph too. x must be static;
// the index may have a symbolic size along `dim` (BERT gathers its token-type buffer at the
// first seq positions), where no constant offsets are needed.
#include "legalize_support.h"
#include "passes.h"

#include <limits>

namespace tico::legalize {
namespace {

// Row-major strides of a static shape.
std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (std::size_t a = sizes.size(); a-- > 1;)
    strides[a - 1] = strides[a] * sizes[a];
  return strides;
}

// int32 of `index_shape` with size 1 at `dim`: at every position, the sum of its coordinates
// along the other dims times x's strides.
std::shared_ptr<const TensorData> otherDimOffsets(std::vector<int64_t> index_shape, std::size_t dim,
                                                  const std::vector<int64_t> &x_strides) {
  index_shape[dim] = 1;
  int64_t n = 1;
  for (int64_t s : index_shape)
    n *= s;
  std::vector<int32_t> values(static_cast<std::size_t>(n));
  std::vector<int64_t> position(index_shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0;
    for (std::size_t a = 0; a < position.size(); ++a)
      offset += position[a] * x_strides[a];
    values[static_cast<std::size_t>(i)] = static_cast<int32_t>(offset);
    for (std::size_t a = position.size(); a-- > 0;) { // next position, last dim fastest
      if (++position[a] < index_shape[a])
        break;
      position[a] = 0;
    }
  }
  return std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, index_shape, values));
}

class ConvertGatherToGatherNd final : public rewrite::Pattern {
public:
  std::vector<OpKey> roots() const override {
    return rewrite::opKeys({"aten::gather.default"});
  }
  bool matchAndRewrite(Node &node, rewrite::Rewriter &rewriter) override { return convert(rewriter, node); }

private:
  static bool convert(rewrite::Rewriter &rewriter, Node &node) {
    Value *x = node.input(0);
    Value *index = node.input(2);
    if (node.arg("sparse_grad").asBool() || !isStatic(x->shape()) || x->rank() != index->rank() || x->rank() == 0)
      return false;
    if (index->dtype() != DType::Int64 && index->dtype() != DType::Int32)
      return false;
    auto dim = tryNormalizeDim(node.arg("dim").asInt(), x->rank());
    if (!dim)
      return false;
    for (std::size_t a = 0; a < index->shape().size(); ++a)
      if (static_cast<int64_t>(a) != *dim && index->shape()[a].isSymbolic())
        return false;
    std::vector<int64_t> index_shape = hintSizes(index->shape());
    std::vector<int64_t> x_shape = hintSizes(x->shape());
    for (std::size_t a = 0; a < index_shape.size(); ++a)
      if (static_cast<int64_t>(a) != *dim && index_shape[a] > x_shape[a])
        return false; // PyTorch rejects this too
    const int64_t numel = numElementsHint(x->shape());
    if (numel > std::numeric_limits<int32_t>::max())
      return false; // the int32 offsets would overflow
    const auto d = static_cast<std::size_t>(*dim);
    const std::vector<int64_t> strides = contiguousStrides(x_shape);

    Builder b = rewriter.builderFor(node);
    Value *offsets = b.castIfNeeded(index, DType::Int32, "_index_int32");
    if (strides[d] != 1)
      offsets = b.value(OpKey("aten", "mul", "Scalar"), {Argument::value(offsets), Argument::integer(strides[d])},
                        DType::Int32, index->shape(), "_index_offsets");
    bool other_dims_vary = false;
    for (std::size_t a = 0; a < index_shape.size(); ++a)
      other_dims_vary |= a != d && index_shape[a] > 1;
    if (other_dims_vary) {
      Value *others = b.constant(otherDimOffsets(index_shape, d, strides), "_other_offsets");
      offsets = b.value(OpKey("aten", "add", "Tensor"), {Argument::value(offsets), Argument::value(others)},
                        DType::Int32, index->shape(), "_offsets");
    }
    Value *flat = b.reshapeTo(x, Shape{numel}, "_flat");
    Value *gathered = b.value(OpKey("aten", "index", "Tensor"), {Argument::value(flat), Argument::optionalValues({offsets})},
                              x->dtype(), index->shape(), "_gather");
    replaceAndErase(rewriter, &node, node.output(), gathered);
    return true;
  }
};

} // namespace

void registerConvertGatherToGatherNd(Registrar &r) {
  r.addPass(sweepPass<ConvertGatherToGatherNd>(
      "convert-gather-to-gather-nd",
      "aten::gather -> one-index GATHER of the flattened input at int32 linear offsets (onert has no GATHER_ND)"));
}

} // namespace tico::legalize
