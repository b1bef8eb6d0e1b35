// TRANSPOSE: output dim i is input dim perm[i]; any dtype (moved by element width).
//
// Dims that stay adjacent and in order are merged first, so NHWC <-> NCHW becomes a batched 2-D
// transpose, which is done in cache-friendly tiles; other permutations walk the output with an
// odometer and a strided inner loop.
#include "dispatch.h"
#include "kernels/registrations.h"
#include "kernels/transpose.h"

#include <algorithm>
#include <cstring>

namespace tico::interp {
namespace {

template <typename T>
void permute(const T *in, T *out, const std::vector<int64_t> &dims, const std::vector<int64_t> &in_strides) {
  // dims: output dims; in_strides: input stride of each output dim.
  const std::size_t rank = dims.size();
  const int64_t inner = dims.back(), inner_stride = in_strides.back();
  std::vector<int64_t> index(rank - 1, 0);
  int64_t offset = 0;
  while (true) {
    for (int64_t i = 0; i < inner; ++i)
      out[i] = in[offset + i * inner_stride];
    out += inner;
    std::size_t d = rank - 1;
    while (true) {
      if (d == 0)
        return;
      --d;
      ++index[d];
      offset += in_strides[d];
      if (index[d] < dims[d])
        break;
      offset -= in_strides[d] * dims[d];
      index[d] = 0;
    }
  }
}

} // namespace

void permuteInto(const Tensor &input, const std::vector<int64_t> &perm, Tensor &out) {
  const int64_t rank = input.rank();
  if (out.numel() == 0)
    return;
  // Merge output dims i, i+1 when they come from adjacent input dims in order; drop size-1 dims.
  const std::vector<int64_t> strides = contiguousStrides(input.shape);
  std::vector<int64_t> dims, in_strides, source;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t p = perm[static_cast<std::size_t>(i)];
    const int64_t size = input.shape[static_cast<std::size_t>(p)];
    if (size == 1)
      continue;
    if (!source.empty() && source.back() + 1 == p) {
      dims.back() *= size;
      in_strides.back() = strides[static_cast<std::size_t>(p)];
    } else {
      dims.push_back(size);
      in_strides.push_back(strides[static_cast<std::size_t>(p)]);
    }
    source.push_back(p);
  }
  dispatchBySize(input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = input.as<T>();
    T *o = out.mut<T>();
    if (dims.size() <= 1) { // the permutation only moves size-1 dims
      std::memcpy(o, in, input.nbytes());
      return;
    }
    const std::size_t n = dims.size();
    // [batch, A, B] -> [batch, B, A]: the last output dim is the input's second-to-last run.
    if (n >= 2 && in_strides[n - 2] == 1 && in_strides[n - 1] == dims[n - 2] &&
        (n == 2 || in_strides[n - 3] == dims[n - 2] * dims[n - 1])) {
      const int64_t batches = n == 2 ? 1 : numElements(Shape(dims.begin(), dims.end() - 2));
      bool batch_contiguous = true;
      for (std::size_t d = 0; d + 2 < n; ++d)
        batch_contiguous = batch_contiguous && in_strides[d] == numElements(Shape(dims.begin() + d + 1, dims.end()));
      if (batch_contiguous) {
        transposeBatches(in, o, batches, dims[n - 1], dims[n - 2]);
        return;
      }
    }
    permute(in, o, dims, in_strides);
  });
}

Shape permutedShape(const Shape &shape, const std::vector<int64_t> &perm) {
  const auto rank = static_cast<int64_t>(shape.size());
  check(static_cast<int64_t>(perm.size()) == rank,
        "perm " + shapeString(perm) + " does not match the input rank " + std::to_string(rank));
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  for (int64_t p : perm) {
    check(p >= 0 && p < rank && !seen[static_cast<std::size_t>(p)],
          "perm " + shapeString(perm) + " is not a permutation of 0.." + std::to_string(rank - 1));
    seen[static_cast<std::size_t>(p)] = true;
  }
  Shape out(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i)
    out[i] = shape[static_cast<std::size_t>(perm[i])];
  return out;
}

namespace {

void runTranspose(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const std::vector<int64_t> perm = integerValues(ctx.input(1));
  Tensor &out = ctx.allocateOutput(0, input.dtype, permutedShape(input.shape, perm));
  permuteInto(input, perm, out);
}

} // namespace

void registerTransposeKernel(KernelTable &table) {
  table.add(circle::BuiltinOperator::TRANSPOSE, runTranspose);
}

} // namespace tico::interp
