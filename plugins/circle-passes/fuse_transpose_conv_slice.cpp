// fuse-transpose-conv-slice: folds a static NHWC SLICE of a TRANSPOSE_CONV result into the
// TRANSPOSE_CONV itself.
//
// A transposed convolution produces a full-size output and the SLICE crops it. TRANSPOSE_CONV
// already crops implicitly: its output_shape operand and padding (SAME or VALID) decide the
// top-left offset. When some padding makes the implicit crop equal the slice's begin (batch
// untouched), the pair becomes one TRANSPOSE_CONV writing the slice's output, with the
// slice's size as output_shape. A crop of output channels is folded by slicing the filter and
// bias. Plain float32, static shapes, constant output_shape / filter / bias / begin / size,
// and the TRANSPOSE_CONV result read only by the SLICE.
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

namespace tico::circle_passes {
namespace {

int64_t inputSize(circle::Padding padding, int64_t output, int64_t filter, int64_t stride) {
  return padding == circle::Padding::SAME ? (output + stride - 1) / stride : (output + stride - filter) / stride;
}

// SAME or VALID whose implicit crop is (top, left) for these sizes, if any.
std::optional<circle::Padding> paddingFor(int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w, int64_t kh,
                                          int64_t kw, int64_t sh, int64_t sw, int64_t top, int64_t left) {
  for (circle::Padding p : {circle::Padding::VALID, circle::Padding::SAME}) {
    if (inputSize(p, out_h, kh, sh) != in_h || inputSize(p, out_w, kw, sw) != in_w)
      continue;
    int64_t t = std::max<int64_t>(0, ((in_h - 1) * sh + kh - out_h) / 2);
    int64_t l = std::max<int64_t>(0, ((in_w - 1) * sw + kw - out_w) / 2);
    if (t == top && l == left)
      return p;
  }
  return std::nullopt;
}

bool fuse(SubgraphEditor &e, int slice) {
  const CircleOperator &s = e.op(slice);
  if (s.inputs.size() != 3 || s.outputs.size() != 1)
    return false;
  const int32_t mid = s.inputs[0], out = s.outputs[0];
  const int tconv = e.producer(mid);
  if (tconv < 0 || e.code(tconv) != BuiltinOperator::TRANSPOSE_CONV || !e.onlyUseIs(mid, slice))
    return false;
  const CircleOperator &t = e.op(tconv);
  const auto *options = t.builtin_options.AsTransposeConvOptions();
  if (!options || t.inputs.size() != 4 || t.outputs.size() != 1 || options->stride_h <= 0 || options->stride_w <= 0)
    return false;
  const int32_t shape_in = t.inputs[0], filter = t.inputs[1], data = t.inputs[2], bias = t.inputs[3];
  auto pre = constantInts(e, shape_in);
  auto begin = constantInts(e, s.inputs[1]);
  auto size = constantInts(e, s.inputs[2]);
  if (!pre || !begin || !size || pre->size() != 4 || begin->size() != 4 || size->size() != 4)
    return false;
  if (!e.isConstantTensor(filter) || !isPlainFloat32(e.tensor(filter)) || !e.isConstantTensor(bias) ||
      !isPlainFloat32(e.tensor(bias)) || !e.validTensor(data) || !isPlainFloat32(e.tensor(data)) ||
      !isPlainFloat32(e.tensor(mid)) || !isPlainFloat32(e.tensor(out)))
    return false;
  // Copies: adding constants below grows the tensor table.
  const std::vector<int32_t> fshape = e.tensor(filter).shape; // [O, KH, KW, I]
  const std::vector<int32_t> dshape = e.tensor(data).shape;
  const std::vector<int32_t> out_shape = e.tensor(out).shape;
  if (fshape.size() != 4 || dshape.size() != 4 || e.tensor(bias).shape.size() != 1 || e.tensor(bias).shape[0] != fshape[0])
    return false;
  for (int d = 0; d < 4; ++d) {
    if ((*size)[d] == -1)
      (*size)[d] = (*pre)[d] - (*begin)[d];
    if ((*pre)[d] <= 0 || (*size)[d] <= 0 || (*begin)[d] < 0 || (*begin)[d] + (*size)[d] > (*pre)[d] ||
        (*size)[d] != out_shape[d] || (*pre)[d] != e.tensor(mid).shape[d])
      return false;
  }
  if ((*begin)[0] != 0 || (*size)[0] != (*pre)[0] || fshape[0] != (*pre)[3] || fshape[3] != dshape[3])
    return false;
  if (inputSize(options->padding, (*pre)[1], fshape[1], options->stride_h) != dshape[1] ||
      inputSize(options->padding, (*pre)[2], fshape[2], options->stride_w) != dshape[2])
    return false;
  auto padding = paddingFor(dshape[1], dshape[2], (*size)[1], (*size)[2], fshape[1], fshape[2], options->stride_h,
                            options->stride_w, (*begin)[1], (*begin)[2]);
  if (!padding)
    return false;

  std::vector<int32_t> inputs = {e.addInt32Constant(out_shape, {4}, derivedName(e, out, "output_shape")), filter, data,
                                 bias};
  if ((*begin)[3] != 0 || (*size)[3] != (*pre)[3]) {
    // Output-channel crop: keep filter rows and bias entries [begin, begin + size).
    const int64_t c0 = (*begin)[3], cn = (*size)[3];
    auto w = *constantAsFloats(e.model(), e.tensor(filter));
    auto b = *constantAsFloats(e.model(), e.tensor(bias));
    const int64_t row = static_cast<int64_t>(w.size()) / fshape[0];
    std::vector<float> wk(w.begin() + c0 * row, w.begin() + (c0 + cn) * row);
    std::vector<float> bk(b.begin() + c0, b.begin() + c0 + cn);
    std::vector<int32_t> wshape = {static_cast<int32_t>(cn), fshape[1], fshape[2], fshape[3]};
    inputs[1] = e.addConstant(circle::TensorType::FLOAT32, wshape, payloadFromFloats(wshape, wk),
                              derivedName(e, out, "filter"));
    inputs[3] = e.addConstant(circle::TensorType::FLOAT32, {static_cast<int32_t>(cn)},
                              payloadFromFloats({static_cast<int32_t>(cn)}, bk), derivedName(e, out, "bias"));
  }
  circle::TransposeConvOptionsT fused = *e.op(tconv).builtin_options.AsTransposeConvOptions();
  fused.padding = *padding;
  e.removeOp(tconv);
  replaceOp(e, slice, BuiltinOperator::TRANSPOSE_CONV, inputs, makeOptions(std::move(fused)));
  return true;
}

class FuseTransposeConvSlice final : public CirclePass {
public:
  explicit FuseTransposeConvSlice(const Options &) {}
  bool run(CircleModel &model, PassContext &) override {
    return sweepToFixedPoint(model, [](SubgraphEditor &e, int i) {
      return e.code(i) == BuiltinOperator::SLICE && fuse(e, i);
    });
  }
};

} // namespace

void registerFuseTransposeConvSlice(Registrar &r) {
  registerCirclePass<FuseTransposeConvSlice>(
      r, "fuse-transpose-conv-slice",
      "fold a static SLICE of a TRANSPOSE_CONV result into the TRANSPOSE_CONV (padding, output shape, channel crop)");
}

} // namespace tico::circle_passes
