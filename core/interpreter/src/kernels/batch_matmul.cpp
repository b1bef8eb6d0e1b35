// BATCH_MATMUL: out[..., M, N] = op(lhs)[..., M, K] . op(rhs)[..., K, N], op = transpose of the
// last two dims when adjoint_lhs / adjoint_rhs is set; the batch dims broadcast like NumPy.
//
// Every output batch is one product on the operands where they are: the matrix kernel takes
// each operand plain or transposed (it copied the transposed form of one operand first).
#include "gemm.h"
#include "kernels/registrations.h"
#include "parallel.h"

#include <vector>

namespace tico::interp {
namespace {

void runBatchMatMul(KernelContext &ctx) {
  const auto &options = ctx.options<circle::BatchMatMulOptionsT>();
  const Tensor &lhs = ctx.input(0);
  const Tensor &rhs = ctx.input(1);
  check(lhs.dtype == DType::Float32 && rhs.dtype == DType::Float32,
        "operands must be float32, got " + dtypeString(lhs.dtype) + " and " + dtypeString(rhs.dtype));
  check(lhs.rank() >= 2 && rhs.rank() >= 2, "operands need rank >= 2, got shapes " + shapeString(lhs.shape) +
                                                " and " + shapeString(rhs.shape));
  const int64_t lr = lhs.dim(lhs.rank() - 2), lc = lhs.dim(lhs.rank() - 1);
  const int64_t rr = rhs.dim(rhs.rank() - 2), rc = rhs.dim(rhs.rank() - 1);
  const int64_t M = options.adjoint_lhs ? lc : lr;
  const int64_t K = options.adjoint_lhs ? lr : lc;
  const int64_t rhs_k = options.adjoint_rhs ? rc : rr;
  const int64_t N = options.adjoint_rhs ? rr : rc;
  check(K == rhs_k, "contraction sizes differ: lhs " + shapeString(lhs.shape) + (options.adjoint_lhs ? " (adjoint)" : "") +
                        " and rhs " + shapeString(rhs.shape) + (options.adjoint_rhs ? " (adjoint)" : ""));

  const Shape lhs_batch(lhs.shape.begin(), lhs.shape.end() - 2);
  const Shape rhs_batch(rhs.shape.begin(), rhs.shape.end() - 2);
  Shape out_shape = broadcastShapes(lhs_batch, rhs_batch);
  const Shape batch_shape = out_shape;
  out_shape.push_back(M);
  out_shape.push_back(N);
  Tensor &out = ctx.allocateOutput(0, DType::Float32, out_shape);

  const float *A = lhs.as<float>();
  const float *B = rhs.as<float>();

  // Batch index -> operand batch index, with broadcasting (stride 0 over size-1 dims).
  const std::size_t rank = batch_shape.size();
  auto strides = [&](const Shape &s) {
    std::vector<int64_t> st(rank, 0);
    int64_t stride = 1;
    for (std::size_t i = s.size(); i-- > 0;) {
      st[rank - s.size() + i] = s[i] == 1 ? 0 : stride;
      stride *= s[i];
    }
    return st;
  };
  const auto lhs_strides = strides(lhs_batch), rhs_strides = strides(rhs_batch);
  const int64_t batches = numElements(batch_shape);
  const bool small = M * N * K < (int64_t{1} << 18);
  parallelFor(batches, small ? 4 : batches, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      int64_t rest = b, li = 0, ri = 0;
      for (std::size_t d = rank; d-- > 0;) {
        const int64_t index = rest % batch_shape[d];
        rest /= batch_shape[d];
        li += index * lhs_strides[d];
        ri += index * rhs_strides[d];
      }
      // Stored lhs is [lr, lc] and rhs [rr, rc]; the leading dimension is the stored row length.
      gemm(options.adjoint_lhs, options.adjoint_rhs, M, N, K, A + li * M * K, lc, B + ri * N * K, rc,
           out.mut<float>() + b * M * N, N);
    }
  });
}

} // namespace

void registerBatchMatMulKernel(KernelTable &table) {
  table.add(circle::BuiltinOperator::BATCH_MATMUL, runBatchMatMul, requireFloat32FirstTwoInputs);
}

} // namespace tico::interp
