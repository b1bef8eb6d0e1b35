// im2col and col2im (nn.Unfold / nn.Fold: VOLO's outlook attention, patch extraction), which
// Circle has no operator for, written with pads, strided slices, reshapes and adds over static
// sizes:
//
//   im2col(x [N, C, H, W], k, d, p, s) -> [N, C*kh*kw, oh*ow]: x padded by p; for each kernel
//     offset (i, j) the strided slice x[:, :, i*dh :: sh][:, :, :, j*dw :: sw] of oh x ow
//     positions; the kh*kw slices stacked after C (channel index c*kh*kw + i*kw + j, PyTorch's
//     order) and the positions flattened.
//   col2im(cols [N, C*kh*kw, L], (H, W), k, d, p, s) -> [N, C, H, W]: for each kernel offset the
//     [oh, ow] plane of cols, spread to the stride (zeros between its rows and columns: a pad of
//     a unit dim and a reshape), padded into place at (i*dh, j*dw) of the padded output, and
//     the kh*kw planes added; the padding cropped at the end. Overlapping windows add up, as
//     col2im's sum does. The planes are [N*C, ., .] so no intermediate exceeds rank 4.
//
// Unbatched inputs (rank 3 for im2col, rank 2 for col2im) take the same path with N = 1.
#include "window_families.h"

#include "layout_rules.h"

namespace tico::decompose {

using passes::A;
using rewrite::Ints;

namespace {

struct Window {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
};

std::optional<Window> windowOf(const Node &n) {
  const auto k = staticInts(n.arg("kernel_size")), d = staticInts(n.arg("dilation"));
  const auto p = staticInts(n.arg("padding")), s = staticInts(n.arg("stride"));
  if (!k || !d || !p || !s || k->size() != 2 || d->size() != 2 || p->size() != 2 || s->size() != 2)
    return std::nullopt;
  Window w{(*k)[0], (*k)[1], (*d)[0], (*d)[1], (*p)[0], (*p)[1], (*s)[0], (*s)[1]};
  if (w.kh < 1 || w.kw < 1 || w.dh < 1 || w.dw < 1 || w.ph < 0 || w.pw < 0 || w.sh < 1 || w.sw < 1)
    return std::nullopt;
  return w;
}

// Output positions along one dim of `size` (padded by `pad` on each side).
int64_t positions(int64_t size, int64_t kernel, int64_t dilation, int64_t pad, int64_t stride) {
  const int64_t span = dilation * (kernel - 1) + 1;
  const int64_t padded = size + 2 * pad;
  return padded < span ? 0 : (padded - span) / stride + 1;
}

Value *reshaped(Builder &b, Value *x, std::vector<int64_t> sizes) {
  return b.make("aten::reshape.default", {A(x), Ints(std::move(sizes))});
}

Value *slice(Builder &b, Value *x, int64_t dim, int64_t start, int64_t end, int64_t step) {
  return b.make("aten::slice.Tensor", {A(x), A(dim), A(start), A(end), A(step)});
}

Value *pad(Builder &b, Value *x, std::vector<int64_t> amounts) {
  return b.make("aten::constant_pad_nd.default", {A(x), Ints(std::move(amounts))});
}

Replacement im2col(Builder &b, Node &n) {
  Value *x = n.input("self");
  const auto w = windowOf(n);
  if (!w || x->dtype() != DType::Float32 || (x->rank() != 3 && x->rank() != 4) || !isStatic(x->shape()))
    return std::nullopt;
  const std::vector<int64_t> sizes = hintSizes(x->shape());
  const bool batched = sizes.size() == 4;
  const int64_t N = batched ? sizes[0] : 1, C = sizes[sizes.size() - 3], H = sizes[sizes.size() - 2],
                W = sizes.back();
  const int64_t oh = positions(H, w->kh, w->dh, w->ph, w->sh), ow = positions(W, w->kw, w->dw, w->pw, w->sw);
  if (oh < 1 || ow < 1)
    return std::nullopt;
  Value *planes = reshaped(b, x, {N * C, H, W});
  if (w->ph > 0 || w->pw > 0)
    planes = pad(b, planes, {w->pw, w->pw, w->ph, w->ph});
  std::vector<Value *> picks;
  for (int64_t i = 0; i < w->kh; ++i)
    for (int64_t j = 0; j < w->kw; ++j) {
      Value *rows = slice(b, planes, 1, i * w->dh, i * w->dh + w->sh * (oh - 1) + 1, w->sh);
      Value *window = slice(b, rows, 2, j * w->dw, j * w->dw + w->sw * (ow - 1) + 1, w->sw);
      picks.push_back(reshaped(b, window, {N * C, 1, oh * ow}));
    }
  Value *stacked = picks.size() == 1 ? picks[0] : b.make("aten::cat.default", {Argument::values(picks), A(int64_t{1})});
  std::vector<int64_t> out{N, C * w->kh * w->kw, oh * ow};
  if (!batched)
    out.erase(out.begin());
  return std::vector<Value *>{reshaped(b, stacked, out)};
}

// plane [M, oh, ow] with (stride - 1) zeros after each row / column: [M, (oh-1)*sh+1, (ow-1)*sw+1].
Value *spread(Builder &b, Value *plane, int64_t M, int64_t oh, int64_t ow, int64_t sh, int64_t sw) {
  if (sw > 1) {
    Value *columns = pad(b, reshaped(b, plane, {M, oh, ow, 1}), {0, sw - 1});
    plane = slice(b, reshaped(b, columns, {M, oh, ow * sw}), 2, 0, (ow - 1) * sw + 1, 1);
  }
  const int64_t width = (ow - 1) * sw + 1;
  if (sh > 1) {
    Value *rows = pad(b, reshaped(b, plane, {M, oh, 1, width}), {0, 0, 0, sh - 1});
    plane = slice(b, reshaped(b, rows, {M, oh * sh, width}), 1, 0, (oh - 1) * sh + 1, 1);
  }
  return plane;
}

Replacement col2im(Builder &b, Node &n) {
  Value *cols = n.input("self");
  const auto w = windowOf(n);
  const auto output_size = staticInts(n.arg("output_size"));
  if (!w || !output_size || output_size->size() != 2 || cols->dtype() != DType::Float32 ||
      (cols->rank() != 2 && cols->rank() != 3) || !isStatic(cols->shape()))
    return std::nullopt;
  const std::vector<int64_t> sizes = hintSizes(cols->shape());
  const bool batched = sizes.size() == 3;
  const int64_t N = batched ? sizes[0] : 1, K = sizes[sizes.size() - 2], L = sizes.back();
  const int64_t H = (*output_size)[0], W = (*output_size)[1];
  const int64_t oh = positions(H, w->kh, w->dh, w->ph, w->sh), ow = positions(W, w->kw, w->dw, w->pw, w->sw);
  const int64_t taps = w->kh * w->kw;
  if (oh < 1 || ow < 1 || oh * ow != L || K % taps != 0)
    return std::nullopt;
  const int64_t C = K / taps, M = N * C;
  const int64_t Hp = H + 2 * w->ph, Wp = W + 2 * w->pw;
  const int64_t height = (oh - 1) * w->sh + 1, width = (ow - 1) * w->sw + 1;
  Value *grouped = reshaped(b, cols, {M, taps, L});
  Value *sum = nullptr;
  for (int64_t i = 0; i < w->kh; ++i)
    for (int64_t j = 0; j < w->kw; ++j) {
      const int64_t tap = i * w->kw + j;
      Value *plane = reshaped(b, slice(b, grouped, 1, tap, tap + 1, 1), {M, oh, ow});
      plane = spread(b, plane, M, oh, ow, w->sh, w->sw);
      const int64_t top = i * w->dh, left = j * w->dw;
      Value *placed = pad(b, plane, {left, Wp - left - width, top, Hp - top - height});
      sum = sum == nullptr ? placed : b.add(A(sum), A(placed));
    }
  Value *cropped = sum;
  if (w->ph > 0)
    cropped = slice(b, cropped, 1, w->ph, w->ph + H, 1);
  if (w->pw > 0)
    cropped = slice(b, cropped, 2, w->pw, w->pw + W, 1);
  std::vector<int64_t> out{N, C, H, W};
  if (!batched)
    out.erase(out.begin());
  return std::vector<Value *>{reshaped(b, cropped, out)};
}

} // namespace

std::vector<Rule> im2colWindowRules() { return {{"aten::im2col.default", im2col}, {"aten::col2im.default", col2im}}; }

} // namespace tico::decompose
