// lower-to-resize-nearest-neighbor: nearest-neighbour upsampling of an NCHW tensor becomes
// permute -> circle::resize_nearest_neighbor (NHWC) -> permute, from
//
//   * upsample_nearest2d / _upsample_nearest_exact2d (.vec or sized), as torch.export writes
//     F.interpolate(mode="nearest" / "nearest-exact"), when the output size is whole;
//   * index(x, [None, None, rows, cols]) with constant rows [Ho, 1] and cols [Wo], as
//     run_decompositions() writes it, when the indices are exactly the ones Circle's kernel
//     computes (floor(i * H/Ho) in float32, or floor((i + 0.5) * H/Ho) for half-pixel centers).
#include "legalize_support.h"
#include "passes.h"

#include <cmath>
#include <cstring>

namespace tico::legalize {
namespace {

// The source index Circle's RESIZE_NEAREST_NEIGHBOR reads for output position `i` (float32
// arithmetic, as the kernels do).
int64_t circleSource(int64_t i, int64_t in, int64_t out, bool half_pixel) {
  float scale = static_cast<float>(in) / static_cast<float>(out);
  float offset = half_pixel ? 0.5f : 0.0f;
  auto v = static_cast<int64_t>(std::floor((static_cast<float>(i) + offset) * scale));
  return std::max<int64_t>(0, std::min<int64_t>(v, in - 1));
}

std::optional<std::vector<int64_t>> integerValues(const Value *v) {
  if (!v || !v->isConstant() || (v->dtype() != DType::Int64 && v->dtype() != DType::Int32))
    return std::nullopt;
  std::vector<std::byte> bytes = v->constant()->contiguousBytes();
  std::vector<int64_t> out;
  std::size_t size = elementSize(v->dtype());
  for (std::size_t i = 0; i < bytes.size(); i += size) {
    if (v->dtype() == DType::Int64) {
      int64_t x;
      std::memcpy(&x, bytes.data() + i, sizeof x);
      out.push_back(x);
    } else {
      int32_t x;
      std::memcpy(&x, bytes.data() + i, sizeof x);
      out.push_back(x);
    }
  }
  return out;
}

// Which kernel convention (false: plain, true: half-pixel centers) produces `indices`.
std::optional<bool> nearestConvention(const std::vector<int64_t> &indices, int64_t in) {
  int64_t out = static_cast<int64_t>(indices.size());
  for (bool half_pixel : {false, true}) {
    bool all = true;
    for (int64_t i = 0; i < out && all; ++i)
      all = indices[static_cast<std::size_t>(i)] == circleSource(i, in, out, half_pixel);
    if (all)
      return half_pixel;
  }
  return std::nullopt;
}

bool spatialStatic(const Value *x, const Value *out) {
  return x->rank() == 4 && out->rank() == 4 && x->dtype() == DType::Float32 && !x->shape()[2].isSymbolic() &&
         !x->shape()[3].isSymbolic() && !out->shape()[2].isSymbolic() && !out->shape()[3].isSymbolic();
}

void replaceWithResize(rewrite::Rewriter &rewriter, Node &node, Value *x, bool half_pixel) {
  const Value *out = node.output();
  Builder b = rewriter.builderFor(node);
  Value *xn = b.permuteOrView(x, {0, 2, 3, 1}, "_input_nhwc");
  Value *resized = b.value(OpKey("circle", "resize_nearest_neighbor"),
                           {Argument::value(xn), Argument::ints({out->shape()[2].value(), out->shape()[3].value()}),
                            Argument::boolean(false), Argument::boolean(half_pixel)},
                           out->dtype(), permuteShape(out->shape(), {0, 2, 3, 1}), "_resize");
  replaceAndErase(rewriter, &node, node.output(), b.permuteOrView(resized, {0, 3, 1, 2}, "_output_nchw"));
}

bool lowerUpsample(Node &node, rewrite::Rewriter &rewriter) {
  Value *x = node.input(0);
  if (!spatialStatic(x, node.output()))
    return false;
  const Argument *scales = node.findArg("scale_factors");
  const Argument *size = node.findArg("output_size");
  if (scales && !scales->isNone() && (!size || size->isNone())) {
    const auto &factors = scales->asDoubles();
    for (std::size_t i = 0; i < 2 && i < factors.size(); ++i) {
      double produced = static_cast<double>(x->shape()[2 + i].value()) * factors[i];
      if (std::fabs(produced - std::round(produced)) > 1e-9)
        return false; // PyTorch then samples with 1/scale, not in/out
    }
  }
  for (const char *name : {"scales_h", "scales_w"})
    if (const Argument *s = node.findArg(name); s && !s->isNone())
      return false;
  replaceWithResize(rewriter, node, x, node.op().name == "_upsample_nearest_exact2d");
  return true;
}

bool lowerIndex(Node &node, rewrite::Rewriter &rewriter) {
  Value *x = node.input(0);
  if (!spatialStatic(x, node.output()))
    return false;
  const auto &indices = node.arg(1).asValues();
  if (indices.size() != 4 || indices[0] || indices[1] || !indices[2] || !indices[3])
    return false;
  const Value *rows = indices[2];
  const Value *cols = indices[3];
  int64_t out_h = node.output()->shape()[2].value(), out_w = node.output()->shape()[3].value();
  if (rows->shape() != Shape{out_h, 1} || cols->shape() != Shape{out_w})
    return false;
  auto r = integerValues(rows);
  auto c = integerValues(cols);
  if (!r || !c)
    return false;
  auto row_convention = nearestConvention(*r, x->shape()[2].value());
  auto col_convention = nearestConvention(*c, x->shape()[3].value());
  if (!row_convention || !col_convention || *row_convention != *col_convention)
    return false;
  replaceWithResize(rewriter, node, x, *row_convention);
  return true;
}


} // namespace

void registerLowerToResizeNearestNeighbor(Registrar &r) {
  r.addPass(sweepPass(
      "lower-to-resize-nearest-neighbor",
      "nearest upsampling (upsample_nearest2d, or index with constant nearest indices) -> circle::resize_nearest_neighbor",
      {{{"aten::upsample_nearest2d.vec", "aten::upsample_nearest2d.default", "aten::_upsample_nearest_exact2d.vec",
         "aten::_upsample_nearest_exact2d.default"},
        lowerUpsample},
       {{"aten::index.Tensor", "aten::_unsafe_index.Tensor"}, lowerIndex}}));
}

} // namespace tico::legalize
