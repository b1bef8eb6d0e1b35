// What the quantized matrix-like kernels (FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D,
// BATCH_MATMUL) share: integer dot products with zero-point offsets, and the output stage that
// turns an accumulator into an output code.
//
// acc[c] = Σ (x − zp_x)(w − zp_w[c]) + bias[c]         int32 (8-bit activations) or int64 (int16)
// out    = clamp(zp_out + acc · M[c], activation range)  M[c] = s_x · s_w[c] / s_out, fixed point
//
// The bias must already be in the accumulator's scale (s_x · s_w[c], zero point 0), as the
// converter writes it: int32 for 8-bit activations, int64 for int16 ones.
#pragma once

#include "dispatch.h"
#include "kernel.h"
#include "quant/fixed_point.h"
#include "quant/qparams.h"

#include <cstdint>
#include <vector>

namespace tico::interp::quant {

struct LinearQuant {
  int32_t input_zero = 0;
  std::vector<int32_t> weight_zero;   // per output channel
  std::vector<Multiplier> multiplier; // per output channel
  std::vector<int64_t> bias;          // per output channel (zeros without a bias)
  int64_t output_zero = 0;
  Range clamp;
  bool wide = false; // int64 accumulators (an int16 operand)

  // The output code of channel c for accumulator `acc` (bias not yet added).
  int64_t output(int64_t acc, std::size_t c) const {
    acc += bias[c];
    // 8-bit accumulators are int32 on the targets this mirrors; saturate rather than wrap.
    const int64_t scaled =
        wide ? multiplyByQuantizedMultiplier64(acc, multiplier[c])
             : multiplyByQuantizedMultiplier(static_cast<int32_t>(acc < INT32_MIN ? INT32_MIN : (acc > INT32_MAX ? INT32_MAX : acc)),
                                             multiplier[c]);
    const int64_t q = output_zero + scaled;
    return q < clamp.lo ? clamp.lo : (q > clamp.hi ? clamp.hi : q);
  }
};

struct LinearSpec {
  std::size_t weights = 1;       // input index of the weights (or the second operand)
  int bias = 2;                  // input index of the bias, -1 for none
  int64_t channels = 0;          // output channels
  int64_t weight_channel_axis = 0;
  circle::ActivationFunctionType activation = circle::ActivationFunctionType::NONE;
  std::size_t input = 0;         // input index of the activations (2 for TRANSPOSE_CONV)
};

// Reads and validates everything above from the operator's tensors.
LinearQuant prepareLinear(const KernelContext &ctx, const LinearSpec &spec);

// The construction-time check shared by these kernels: input and output uint8/int8/int16,
// weights uint8/int8/int16 (4-bit weights arrive unpacked), bias int32/int64, parameters valid.
std::string checkLinearTypes(const OpSignature &op, std::size_t weights, int bias, std::size_t input = 0);

// Writes already clamped codes into `out` (uint8/int8/int16) starting at element `offset`.
void storeCodes(const int64_t *codes, int64_t count, Tensor &out, int64_t offset);

// Calls f(TypeTag<X>, TypeTag<W>, TypeTag<Acc>) for the operand types; Acc is int64 when
// either operand is int16.
template <typename F> void dispatchLinear(DType input, DType weights, F &&f) {
  auto withWeights = [&](auto x) {
    using X = typename decltype(x)::type;
    switch (weights) {
    case DType::UInt8: return f(x, TypeTag<uint8_t>{}, TypeTag<std::conditional_t<sizeof(X) == 2, int64_t, int32_t>>{});
    case DType::Int8: return f(x, TypeTag<int8_t>{}, TypeTag<std::conditional_t<sizeof(X) == 2, int64_t, int32_t>>{});
    case DType::Int16: return f(x, TypeTag<int16_t>{}, TypeTag<int64_t>{});
    default: unsupportedType(weights, "quantized weights");
    }
  };
  switch (input) {
  case DType::UInt8: return withWeights(TypeTag<uint8_t>{});
  case DType::Int8: return withWeights(TypeTag<int8_t>{});
  case DType::Int16: return withWeights(TypeTag<int16_t>{});
  default: unsupportedType(input, "quantized input");
  }
}

// The 8-bit products of a linear layer through the library (quant/integer_gemm.h), when it is
// exact on this CPU: for activations x [rows, depth] and weights w [units, depth] (uint8 or
// int8 each), acc[r, u] = Σ_k (x[r,k] − q.input_zero)(w[u,k] − q.weight_zero[u]), written as
// int64 to `acc` [rows, units]. Returns false (nothing written) when the library path is not
// available or the types are not 8-bit; the caller then runs its loops. Same integers as
// offsetDot: the library multiplies uint8 by int8, so int8 activations are moved to uint8 and
// uint8 weights to int8 by 128 (the zero points move with them) and the weight zero points are
// applied through the activation row sums: Σ (x − zx)(w − zw) = Σ (x − zx) w' − zw' Σ (x − zx).
bool integerLinear(const Tensor &x, const Tensor &w, int64_t rows, int64_t units, int64_t depth, const LinearQuant &q,
                   std::vector<int64_t> &acc);
// The output stage of integerLinear's accumulators: row r's codes (channel u's multiplier and
// bias, or channel 0's when the parameters are per tensor) go to `out` from row first_row + r.
void storeLinearOutputs(const std::vector<int64_t> &acc, int64_t rows, int64_t units, const LinearQuant &q, Tensor &out,
                        int64_t first_row);

// Σ (a[i] − a_zero)(b[i] − b_zero) over n elements.
template <typename Acc, typename A, typename B>
inline Acc offsetDot(const A *a, int32_t a_zero, const B *b, int32_t b_zero, int64_t n) {
  Acc sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += static_cast<Acc>(static_cast<int32_t>(a[i]) - a_zero) * static_cast<Acc>(static_cast<int32_t>(b[i]) - b_zero);
  return sum;
}

} // namespace tico::interp::quant
