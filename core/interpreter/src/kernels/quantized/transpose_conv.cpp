// Quantized TRANSPOSE_CONV: NHWC input (input 2), OHWI filter (per tensor or per output channel
// on dim 0), optional int32/int64 bias (input 3), SAME/VALID padding, strides, and a clamp
// activation applied in the quantized domain. Each output position gathers the input pixels
// whose scattered window covers it, so every output code comes from one integer accumulator
// and one requantization, as an integer NPU computes it; positions no input reaches hold the
// bias alone.
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"
#include "kernels/transpose_conv_geometry.h"
#include "parallel.h"

namespace tico::interp {
namespace {

void runQuantizedTransposeConv(KernelContext &ctx) {
  const auto &options = ctx.options<circle::TransposeConvOptionsT>();
  const Tensor &filter = ctx.input(1);
  const Tensor &input = ctx.input(2);
  const TransposeConvGeometry g = transposeConvGeometry(ctx);
  const quant::LinearQuant q =
      quant::prepareLinear(ctx, {1, 3, g.out_channels, 0, options.fused_activation_function, 2});
  Tensor &out = ctx.allocateOutput(0, g.out_shape);
  quant::dispatchLinear(input.dtype, filter.dtype, [&](auto x_tag, auto w_tag, auto acc_tag) {
    using X = typename decltype(x_tag)::type;
    using W = typename decltype(w_tag)::type;
    using Acc = typename decltype(acc_tag)::type;
    const X *in = input.as<X>();
    const W *w = filter.as<W>();
    const int64_t cin = g.in_channels, cout = g.out_channels;
    const int64_t work = g.out_w * cout * g.kh * g.kw * cin;
    parallelFor(g.batch * g.out_h, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, work)), [&](int64_t r0, int64_t r1) {
      std::vector<int64_t> codes(static_cast<std::size_t>(cout));
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t n = r / g.out_h, oy = r % g.out_h;
        for (int64_t ox = 0; ox < g.out_w; ++ox) {
          for (int64_t oc = 0; oc < cout; ++oc) {
            const auto c = static_cast<std::size_t>(oc);
            Acc acc = 0;
            // Input pixel (iy, ix) writes to (iy * sh + ky - pad_y, ix * sw + kx - pad_x).
            for (int64_t ky = 0; ky < g.kh; ++ky) {
              const int64_t ty = oy + g.pad_y - ky;
              if (ty < 0 || ty % g.sh != 0 || ty / g.sh >= g.height)
                continue;
              const int64_t iy = ty / g.sh;
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                const int64_t tx = ox + g.pad_x - kx;
                if (tx < 0 || tx % g.sw != 0 || tx / g.sw >= g.width)
                  continue;
                const int64_t ix = tx / g.sw;
                acc += quant::offsetDot<Acc>(in + ((n * g.height + iy) * g.width + ix) * cin, q.input_zero,
                                             w + ((oc * g.kh + ky) * g.kw + kx) * cin, q.weight_zero[c], cin);
              }
            }
            codes[c] = q.output(acc, c);
          }
          quant::storeCodes(codes.data(), cout, out, ((n * g.out_h + oy) * g.out_w + ox) * cout);
        }
      }
    });
  });
}

std::string checkQuantizedTransposeConv(const OpSignature &op) {
  if (auto reason = requireInputType(op, 0, {DType::Int32, DType::Int64}); !reason.empty())
    return reason;
  return quant::checkLinearTypes(op, 1, 3, 2);
}

} // namespace

void registerQuantizedTransposeConv(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::TRANSPOSE_CONV, runQuantizedTransposeConv, checkQuantizedTransposeConv);
}

} // namespace tico::interp
