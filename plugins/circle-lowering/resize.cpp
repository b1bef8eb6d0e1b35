// upsample_nearest2d / _upsample_nearest_exact2d / upsample_bilinear2d (.vec and sized
// overloads) -> TRANSPOSE -> RESIZE_NEAREST_NEIGHBOR / RESIZE_BILINEAR -> TRANSPOSE; the NHWC
// circle::resize_nearest_neighbor / circle::resize_bilinear map onto them directly.
//
// Coordinate conventions: PyTorch 'nearest' reads floor(dst * in/out), which is TFLite's
// default; 'nearest-exact' reads floor((dst + 0.5) * in/out), TFLite's half_pixel_centers;
// bilinear with align_corners=False samples (dst + 0.5) * in/out - 0.5, TFLite's
// half_pixel_centers, and align_corners=True is TFLite's align_corners. PyTorch computes the
// source scale from scale_factors when they are given; that equals in/out only when
// in * scale is a whole number, so other factors are rejected.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"
#include "tico/ops/circle_ops.h"

#include <cmath>

namespace tico::lowering {
namespace {

enum class Mode { Nearest, NearestExact, Bilinear };

// The [out_h, out_w] PyTorch produces, checked against the node's scale factors.
std::vector<int64_t> outputSize(const Node &node, std::size_t height_dim) {
  const Value *in = node.input(0);
  const Value *out = node.output();
  for (std::size_t i = 0; i < 2; ++i)
    if (in->shape()[height_dim + i].isSymbolic() || out->shape()[height_dim + i].isSymbolic())
      throw Error("resizing needs static spatial sizes");
  std::vector<int64_t> size = {out->shape()[height_dim].value(), out->shape()[height_dim + 1].value()};
  const Argument *scales = node.findArg("scale_factors");
  if (scales && !scales->isNone() && node.arg("output_size").isNone()) {
    const auto &factors = scales->asDoubles();
    for (std::size_t i = 0; i < 2 && i < factors.size(); ++i) {
      double produced = static_cast<double>(in->shape()[height_dim + i].value()) * factors[i];
      if (std::fabs(produced - std::round(produced)) > 1e-9)
        throw Error("scale factor " + std::to_string(factors[i]) +
                    " does not give a whole output size; PyTorch then samples differently from Circle's RESIZE");
    }
  }
  for (const char *name : {"scales_h", "scales_w"})
    if (const Argument *s = node.findArg(name); s && !s->isNone())
      throw Error(std::string("explicit ") + name + " is not supported");
  return size;
}

class Resize final : public CheckedLowering {
public:
  Resize(Mode mode, bool nhwc) : mode_(mode), nhwc_(nhwc) {}

  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->rank() != 4)
      return "resizing is supported for batched 4-D input only";
    if (auto r = requireFloat(in, mode_ == Mode::Bilinear ? "RESIZE_BILINEAR" : "RESIZE_NEAREST_NEIGHBOR"); !r.empty())
      return r;
    if (nhwc_) {
      if (node.arg("align_corners").asBool() && node.arg("half_pixel_centers").asBool())
        return "align_corners and half_pixel_centers are exclusive";
      return {};
    }
    outputSize(node, 2);
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    const std::string base = node.name();
    std::vector<int64_t> size = nhwc_ ? intList(node.arg("size"), 2, "size") : outputSize(node, 2);
    bool align_corners = false, half_pixel = false;
    if (nhwc_) {
      align_corners = node.arg("align_corners").asBool();
      half_pixel = node.arg("half_pixel_centers").asBool();
    } else if (mode_ == Mode::Bilinear) {
      align_corners = node.arg("align_corners").asBool();
      half_pixel = !align_corners;
    } else {
      half_pixel = mode_ == Mode::NearestExact;
    }
    int32_t x = nhwc_ ? emit.tensor(in)
                      : emitTranspose(emit, emit.tensor(in), in->dtype(), in->shape(), {0, 2, 3, 1}, base + "_input_nhwc");
    int32_t y = nhwc_ ? emit.tensor(out)
                      : emit.newTensor(out->dtype(), permuteShape(out->shape(), {0, 2, 3, 1}), base + "_nhwc");
    int32_t size_t_ = emit.constInt32(toInt32(size, "size"), base + "_size");
    if (mode_ == Mode::Bilinear) {
      circle::ResizeBilinearOptionsT o;
      o.align_corners = align_corners;
      o.half_pixel_centers = half_pixel;
      emit.addOperator(circle::BuiltinOperator::RESIZE_BILINEAR, {x, size_t_}, {y}, options(std::move(o)));
    } else {
      circle::ResizeNearestNeighborOptionsT o;
      o.align_corners = align_corners;
      o.half_pixel_centers = half_pixel;
      emit.addOperator(circle::BuiltinOperator::RESIZE_NEAREST_NEIGHBOR, {x, size_t_}, {y}, options(std::move(o)));
    }
    if (!nhwc_)
      emitTransposeInto(emit, y, {0, 3, 1, 2}, emit.tensor(out), base + "_output_nchw");
  }

private:
  Mode mode_;
  bool nhwc_;
};

} // namespace

void registerResize(Registrar &r) {
  registerFor(r, {ops::aten::upsample_nearest2d_vec, ops::aten::upsample_nearest2d_default},
              "TRANSPOSE -> RESIZE_NEAREST_NEIGHBOR -> TRANSPOSE", std::make_shared<Resize>(Mode::Nearest, false));
  registerFor(r, {ops::aten::_upsample_nearest_exact2d_vec, ops::aten::_upsample_nearest_exact2d_default},
              "TRANSPOSE -> RESIZE_NEAREST_NEIGHBOR (half_pixel_centers) -> TRANSPOSE",
              std::make_shared<Resize>(Mode::NearestExact, false));
  registerFor(r, {ops::aten::upsample_bilinear2d_vec, ops::aten::upsample_bilinear2d_default},
              "TRANSPOSE -> RESIZE_BILINEAR -> TRANSPOSE", std::make_shared<Resize>(Mode::Bilinear, false));
  registerFor(r, {ops::circle::resize_nearest_neighbor_default}, "RESIZE_NEAREST_NEIGHBOR, NHWC",
              std::make_shared<Resize>(Mode::Nearest, true));
  registerFor(r, {ops::circle::resize_bilinear_default}, "RESIZE_BILINEAR, NHWC",
              std::make_shared<Resize>(Mode::Bilinear, true));
}

} // namespace tico::lowering
