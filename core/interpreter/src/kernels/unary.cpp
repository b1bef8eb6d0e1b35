// Elementwise math: EXP, LOG, SQRT, RSQRT, SIN, COS, FLOOR, CEIL, ROUND (float32);
// NEG, ABS, SQUARE, SIGN (any numeric dtype; integer NEG/ABS/SQUARE wrap like PyTorch).
#include "kernels/registrations.h"
#include "kernels/unary.h"

#include <cmath>
#include <type_traits>

namespace tico::interp {
namespace {

template <typename T> T wrapNegate(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return -x;
  } else {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(U{0} - static_cast<U>(x)));
  }
}

template <typename T> T wrapSquare(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return x * x;
  } else {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(x) * static_cast<U>(x)));
  }
}

} // namespace

void registerUnaryKernels(KernelTable &table) {
  using B = circle::BuiltinOperator;
  table.add(B::EXP, [](KernelContext &c) { mapFloat(c, "EXP", [](float x) { return std::exp(x); }); }, checkFloatInput, kInPlaceInput0);
  table.add(B::LOG, [](KernelContext &c) { mapFloat(c, "LOG", [](float x) { return std::log(x); }); }, checkFloatInput, kInPlaceInput0);
  table.add(B::SQRT, [](KernelContext &c) { mapFloat(c, "SQRT", [](float x) { return std::sqrt(x); }); },
            checkFloatInput, kInPlaceInput0);
  table.add(B::RSQRT, [](KernelContext &c) { mapFloat(c, "RSQRT", [](float x) { return 1.0f / std::sqrt(x); }); },
            checkFloatInput, kInPlaceInput0);
  table.add(B::SIN, [](KernelContext &c) { mapFloat(c, "SIN", [](float x) { return std::sin(x); }); }, checkFloatInput, kInPlaceInput0);
  table.add(B::COS, [](KernelContext &c) { mapFloat(c, "COS", [](float x) { return std::cos(x); }); }, checkFloatInput, kInPlaceInput0);
  table.add(B::FLOOR, [](KernelContext &c) { mapFloat(c, "FLOOR", [](float x) { return std::floor(x); }); },
            checkFloatInput, kInPlaceInput0);
  table.add(B::CEIL, [](KernelContext &c) { mapFloat(c, "CEIL", [](float x) { return std::ceil(x); }); },
            checkFloatInput, kInPlaceInput0);
  // Half-way cases go to the even neighbour, like TFLite's ROUND and torch.round.
  table.add(B::ROUND, [](KernelContext &c) { mapFloat(c, "ROUND", [](float x) { return std::nearbyint(x); }); },
            checkFloatInput, kInPlaceInput0);
  table.add(B::NEG, [](KernelContext &c) { mapNumeric(c, "NEG", [](auto x) { return wrapNegate(x); }); },
            checkNumericInput, kInPlaceInput0);
  table.add(B::ABS, [](KernelContext &c) {
    mapNumeric(c, "ABS", [](auto x) { return x < 0 ? wrapNegate(x) : x; });
  }, checkNumericInput, kInPlaceInput0);
  table.add(B::SQUARE, [](KernelContext &c) { mapNumeric(c, "SQUARE", [](auto x) { return wrapSquare(x); }); },
            checkNumericInput, kInPlaceInput0);
  table.add(B::SIGN, [](KernelContext &c) {
    mapNumeric(c, "SIGN", [](auto x) { return static_cast<decltype(x)>((x > 0) - (x < 0)); });
  }, checkNumericInput, kInPlaceInput0);
}

} // namespace tico::interp
