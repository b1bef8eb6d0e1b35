// Quantized BATCH_MATMUL: out[..., m, n] = requantize(Σ_k (L[..., m, k] − zp_L)(R[..., k, n] − zp_R))
// with per-tensor parameters on both operands (either may be constant), adjoint flags and
// NumPy broadcasting of the batch dims; M = s_L · s_R / s_out as in linear.h (no bias). 8-bit
// operands multiply on oneDNN where that is exact (quant/integer_gemm.h).
#include "kernels/quantized/linear.h"
#include "kernels/quantized/registrations.h"
#include "parallel.h"

namespace tico::interp {
namespace {

void runQuantizedBatchMatMul(KernelContext &ctx) {
  const auto &options = ctx.options<circle::BatchMatMulOptionsT>();
  const Tensor &lhs = ctx.input(0);
  const Tensor &rhs = ctx.input(1);
  check(lhs.rank() >= 2 && rhs.rank() >= 2, "operands need rank >= 2, got shapes " + shapeString(lhs.shape) +
                                                " and " + shapeString(rhs.shape));
  const int64_t lr = lhs.dim(lhs.rank() - 2), lc = lhs.dim(lhs.rank() - 1);
  const int64_t rr = rhs.dim(rhs.rank() - 2), rc = rhs.dim(rhs.rank() - 1);
  const int64_t M = options.adjoint_lhs ? lc : lr, K = options.adjoint_lhs ? lr : lc;
  const int64_t rhs_k = options.adjoint_rhs ? rc : rr, N = options.adjoint_rhs ? rr : rc;
  check(K == rhs_k, "contraction sizes differ: lhs " + shapeString(lhs.shape) + (options.adjoint_lhs ? " (adjoint)" : "") +
                        " and rhs " + shapeString(rhs.shape) + (options.adjoint_rhs ? " (adjoint)" : ""));
  const quant::LinearQuant q = quant::prepareLinear(ctx, {1, -1, 1, 0, circle::ActivationFunctionType::NONE});

  const Shape lhs_batch(lhs.shape.begin(), lhs.shape.end() - 2), rhs_batch(rhs.shape.begin(), rhs.shape.end() - 2);
  const Shape batch_shape = broadcastShapes(lhs_batch, rhs_batch);
  Shape out_shape = batch_shape;
  out_shape.push_back(M);
  out_shape.push_back(N);
  Tensor &out = ctx.allocateOutput(0, out_shape);
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

  quant::dispatchLinear(lhs.dtype, rhs.dtype, [&](auto l_tag, auto r_tag, auto acc_tag) {
    using L = typename decltype(l_tag)::type;
    using R = typename decltype(r_tag)::type;
    using Acc = typename decltype(acc_tag)::type;
    parallelFor(batches, 1, [&](int64_t b0, int64_t b1) {
      // Operands as [M, K] and [N, K] rows (zero points still applied in offsetDot).
      std::vector<L> a(static_cast<std::size_t>(M * K));
      std::vector<R> b(static_cast<std::size_t>(N * K));
      std::vector<int64_t> codes(static_cast<std::size_t>(N)), acc;
      for (int64_t batch = b0; batch < b1; ++batch) {
        int64_t rest = batch, li = 0, ri = 0;
        for (std::size_t d = rank; d-- > 0;) {
          const int64_t index = rest % batch_shape[d];
          rest /= batch_shape[d];
          li += index * lhs_strides[d];
          ri += index * rhs_strides[d];
        }
        const L *lp = lhs.as<L>() + li * M * K;
        const R *rp = rhs.as<R>() + ri * N * K;
        for (int64_t m = 0; m < M; ++m)
          for (int64_t k = 0; k < K; ++k)
            a[static_cast<std::size_t>(m * K + k)] = options.adjoint_lhs ? lp[k * M + m] : lp[m * K + k];
        for (int64_t n = 0; n < N; ++n)
          for (int64_t k = 0; k < K; ++k)
            b[static_cast<std::size_t>(n * K + k)] = options.adjoint_rhs ? rp[n * K + k] : rp[k * N + n];
        const Tensor a_rows{lhs.dtype, {M, K}, nullptr, reinterpret_cast<std::byte *>(a.data())};
        const Tensor b_rows{rhs.dtype, {N, K}, nullptr, reinterpret_cast<std::byte *>(b.data())};
        if (quant::integerLinear(a_rows, b_rows, M, N, K, q, acc)) { // 8-bit operands on the library
          quant::storeLinearOutputs(acc, M, N, q, out, batch * M);
          continue;
        }
        for (int64_t m = 0; m < M; ++m) {
          for (int64_t n = 0; n < N; ++n)
            codes[static_cast<std::size_t>(n)] =
                q.output(quant::offsetDot<Acc>(a.data() + m * K, q.input_zero, b.data() + n * K, q.weight_zero[0], K), 0);
          quant::storeCodes(codes.data(), N, out, (batch * M + m) * N);
        }
      }
    });
  });
}

std::string checkQuantizedBatchMatMul(const OpSignature &op) {
  if (auto reason = quant::checkLinearTypes(op, 1, -1); !reason.empty())
    return reason;
  (void)quant::perTensorQParams(op.inputTensor(1), "input 1");
  return "";
}

} // namespace

void registerQuantizedBatchMatMul(KernelTable &table) {
  table.addQuantized(circle::BuiltinOperator::BATCH_MATMUL, runQuantizedBatchMatMul, checkQuantizedBatchMatMul);
}

} // namespace tico::interp
