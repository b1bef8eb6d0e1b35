// convert-conv3d-to-conv2d: a 3-D convolution becomes kD 2-D convolutions, one per kernel
// depth tap, each over every output depth at once:
//
//   xp   = constant_pad_nd(x, depth padding)                    [N, C, D + 2pD, H, W]
//          (on a [N, C, D, H*W] view: runtimes pad up to rank 4)
//   for kd in 0 .. kD-1:
//     xs = xp[:, :, kd*dD : kd*dD + (Do-1)*sD + 1 : sD]          [N, C, Do, H, W]
//     y += conv2d(reshape(permute(xs, [0,2,1,3,4]), [N*Do, C, H, W]), w[:, :, kd], ...)
//   out  = permute(reshape(y, [N, Do, O, Ho, Wo]), [0,2,1,3,4])   [N, O, Do, Ho, Wo]
//
// The bias is added once (by the first tap). The depth, height and width must be static
// (the batch may be symbolic); constant weights are sliced as views of their storage.
#include "legalize_support.h"
#include "passes.h"

namespace tico::legalize {
namespace {

Dim times(const Dim &d, int64_t k) {
  if (d.isStatic())
    return Dim(d.value() * k);
  return Dim::symbolic(std::to_string(k) + "*(" + d.expr() + ")", d.value() * k);
}

class ConvertConv3dToConv2d final : public rewrite::Pattern {
public:
  std::vector<OpKey> roots() const override {
    return rewrite::opKeys({"aten::conv3d.default", "aten::conv3d.padding", "aten::convolution.default"});
  }
  bool matchAndRewrite(Node &node, rewrite::Rewriter &rewriter) override { return convert(rewriter, node); }

private:
  static bool convert(rewrite::Rewriter &rewriter, Node &node) {
    Value *x = node.input(0);
    Value *w = node.input(1);
    const Value *out = node.output();
    if (x->rank() != 5 || w->rank() != 5 || x->dtype() != DType::Float32)
      return false;
    if (const Argument *t = node.findArg("transposed"); t && t->asBool())
      return false;
    for (std::size_t i = 1; i < 5; ++i)
      if (x->shape()[i].isSymbolic() || w->shape()[i].isSymbolic() || out->shape()[i].isSymbolic())
        return false;
    if (w->shape()[0].isSymbolic())
      return false;
    auto stride = staticInts(node.arg("stride"), 3);
    auto dilation = staticInts(node.arg("dilation"), 3);
    std::optional<std::vector<int64_t>> padding;
    const Argument &padding_arg = node.arg("padding");
    if (padding_arg.kind() == Argument::Kind::String) {
      if (padding_arg.asString() == "valid")
        padding = std::vector<int64_t>{0, 0, 0};
    } else {
      padding = staticInts(padding_arg, 3);
    }
    if (!stride || !dilation || !padding)
      return false;

    const Shape &xs = x->shape();
    const Shape &os = out->shape();
    int64_t kd_count = w->shape()[2].value();
    int64_t depth_out = os[2].value();
    int64_t channels = xs[1].value();
    int64_t out_channels = os[1].value();
    Builder b = rewriter.builderFor(node);

    Value *padded = x;
    if ((*padding)[0] > 0) {
      // The depth padding runs on a 4-D view [N, C, D, H*W]: a rank-5 PAD is as valid, but
      // runtimes implement PAD up to rank 4 only (onert 0.2: "Padding for rank > 4 NYI").
      int64_t plane = xs[3].value() * xs[4].value();
      int64_t depth_padded = xs[2].value() + 2 * (*padding)[0];
      Value *flat = b.reshapeTo(x, {xs[0], xs[1], xs[2], Dim(plane)}, "_depth_rows");
      Value *flat_padded = b.value(OpKey("aten", "constant_pad_nd"),
                                   {Argument::value(flat), Argument::ints({0, 0, (*padding)[0], (*padding)[0]}),
                                    Argument::integer(0)},
                                   x->dtype(), {xs[0], xs[1], Dim(depth_padded), Dim(plane)}, "_depth_rows_padded");
      padded = b.reshapeTo(flat_padded, {xs[0], xs[1], Dim(depth_padded), xs[3], xs[4]}, "_depth_padded");
    }
    Dim rows = times(xs[0], depth_out);
    Shape conv_out = {rows, out_channels, os[3], os[4]};
    Value *sum = nullptr;
    for (int64_t kd = 0; kd < kd_count; ++kd) {
      const std::string tag = "_tap" + std::to_string(kd);
      int64_t start = kd * (*dilation)[0];
      Value *taps = b.sliceOrView(padded, 2, start, start + (depth_out - 1) * (*stride)[0] + 1, (*stride)[0], tag);
      Value *moved = b.permuteOrView(taps, {0, 2, 1, 3, 4}, tag + "_depth_major");
      Value *flat = b.reshapeTo(moved, {rows, channels, xs[3], xs[4]}, tag + "_as_batch");
      Value *wk = b.squeezeOrView(b.sliceOrView(w, 2, kd, kd + 1, 1, tag + "_weight_slice"), 2, tag + "_weight");
      Argument bias = kd == 0 ? node.arg("bias") : Argument::none();
      Value *y = b.value(OpKey("aten", "conv2d"),
                         {Argument::value(flat), Argument::value(wk), bias,
                          Argument::ints({(*stride)[1], (*stride)[2]}), Argument::ints({(*padding)[1], (*padding)[2]}),
                          Argument::ints({(*dilation)[1], (*dilation)[2]}), node.arg("groups")},
                         out->dtype(), conv_out, tag + "_conv");
      sum = sum ? b.value(OpKey("aten", "add", "Tensor"), {Argument::value(sum), Argument::value(y)}, out->dtype(),
                          conv_out, tag + "_sum")
                : y;
    }
    Value *unflat = b.reshapeTo(sum, {os[0], depth_out, out_channels, os[3], os[4]}, "_depth_major");
    replaceAndErase(rewriter, &node, node.output(), b.permuteOrView(unflat, {0, 2, 1, 3, 4}, "_2d"));
    return true;
  }
};

} // namespace

void registerConvertConv3dToConv2d(Registrar &r) {
  r.addPass(sweepPass<ConvertConv3dToConv2d>(
      "convert-conv3d-to-conv2d", "3-D convolution -> one 2-D convolution per kernel depth tap, summed"));
}

} // namespace tico::legalize
