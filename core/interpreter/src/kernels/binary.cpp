// Broadcasting arithmetic: ADD, SUB, MUL, DIV, FLOOR_DIV, FLOOR_MOD, POW, MAXIMUM, MINIMUM,
// SQUARED_DIFFERENCE and PRELU.
//
// Integer arithmetic wraps like two's complement (as in PyTorch) instead of being undefined;
// integer division by zero is an error. MAXIMUM/MINIMUM propagate NaN like torch.maximum.
#include "broadcast.h"
#include "dispatch.h"
#include "kernels/registrations.h"

#include <cmath>
#include <type_traits>

namespace tico::interp {
namespace {

template <typename T> T wrapping(T a, T b, char op) {
  using U = std::make_unsigned_t<T>;
  const U x = static_cast<U>(a), y = static_cast<U>(b);
  switch (op) {
  case '+': return static_cast<T>(static_cast<U>(x + y));
  case '-': return static_cast<T>(static_cast<U>(x - y));
  default: return static_cast<T>(static_cast<U>(x * y));
  }
}

struct AddOp {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      return a + b;
    else
      return wrapping(a, b, '+');
  }
};
struct SubOp {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      return a - b;
    else
      return wrapping(a, b, '-');
  }
};
struct MulOp {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      return a * b;
    else
      return wrapping(a, b, '*');
  }
};
struct SquaredDifferenceOp {
  template <typename T> T operator()(T a, T b) const {
    const T d = SubOp{}(a, b);
    return MulOp{}(d, d);
  }
};

[[noreturn]] void divisionByZero() { throw Error("integer division by zero"); }

struct DivOp {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return a / b;
    } else {
      if (b == 0)
        divisionByZero();
      if (b == -1)
        return wrapping(a, T(-1), '*'); // INT_MIN / -1 wraps instead of trapping
      return static_cast<T>(a / b);     // truncation, like TFLite's integer DIV
    }
  }
};
struct FloorDivOp {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::floor(a / b);
    } else {
      if (b == 0)
        divisionByZero();
      if (b == -1)
        return wrapping(a, T(-1), '*');
      T q = static_cast<T>(a / b);
      if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
      return q;
    }
  }
};
struct FloorModOp {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      T r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
      return r;
    } else {
      if (b == 0)
        divisionByZero();
      if (b == -1)
        return 0;
      T r = static_cast<T>(a % b);
      if (r != 0 && ((r < 0) != (b < 0)))
        r = static_cast<T>(r + b);
      return r;
    }
  }
};
struct PowOp {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(a, b);
    } else {
      if (b < 0)
        throw Error("integer POW with a negative exponent");
      T result = 1, base = a;
      for (auto e = b; e > 0; e >>= 1) {
        if (e & 1)
          result = wrapping(result, base, '*');
        base = wrapping(base, base, '*');
      }
      return result;
    }
  }
};
struct MaximumOp {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      return (a > b || std::isnan(a)) ? a : b;
    else
      return a > b ? a : b;
  }
};
struct MinimumOp {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      return (a < b || std::isnan(a)) ? a : b;
    else
      return a < b ? a : b;
  }
};
struct PreluOp {
  template <typename T> T operator()(T x, T alpha) const { return x >= 0 ? x : MulOp{}(x, alpha); }
};

template <typename T> void clampToActivation(Tensor &out, circle::ActivationFunctionType activation) {
  if (activation == circle::ActivationFunctionType::NONE)
    return;
  if constexpr (std::is_same_v<T, float>) {
    applyActivation(out.mut<float>(), out.numel(), activation);
  } else {
    float low, high;
    if (!activationRange(activation, low, high))
      throw Error(std::string("fused activation ") + circle::EnumNameActivationFunctionType(activation) +
                  " is not supported on integer tensors");
    T *data = out.mut<T>();
    for (int64_t i = 0; i < out.numel(); ++i) {
      if (static_cast<float>(data[i]) < low)
        data[i] = static_cast<T>(low);
      if (static_cast<float>(data[i]) > high)
        data[i] = static_cast<T>(high);
    }
  }
}

// Both operands share one dtype (the converter casts before arithmetic); the output has it too.
template <typename Op, bool kAllNumeric = false>
void runBinary(KernelContext &ctx, const char *name, circle::ActivationFunctionType activation) {
  const Tensor &a = ctx.input(0);
  const Tensor &b = ctx.input(1);
  check(a.dtype == b.dtype, std::string(name) + " operands have different dtypes: " + dtypeString(a.dtype) +
                                " and " + dtypeString(b.dtype));
  Tensor &out = ctx.allocateOutput(0, a.dtype, broadcastShapes(a.shape, b.shape));
  auto body = [&](auto tag) {
    using T = typename decltype(tag)::type;
    broadcastBinary<T, T, T>(a, b, out, Op{});
    clampToActivation<T>(out, activation);
  };
  if constexpr (kAllNumeric)
    dispatchNumeric(a.dtype, name, body);
  else
    dispatchArithmetic(a.dtype, name, body);
}

template <typename Options> circle::ActivationFunctionType activationOf(const KernelContext &ctx) {
  return ctx.options<Options>().fused_activation_function;
}

void runAdd(KernelContext &ctx) { runBinary<AddOp>(ctx, "ADD", activationOf<circle::AddOptionsT>(ctx)); }
void runSub(KernelContext &ctx) { runBinary<SubOp>(ctx, "SUB", activationOf<circle::SubOptionsT>(ctx)); }
void runMul(KernelContext &ctx) { runBinary<MulOp>(ctx, "MUL", activationOf<circle::MulOptionsT>(ctx)); }
void runDiv(KernelContext &ctx) { runBinary<DivOp>(ctx, "DIV", activationOf<circle::DivOptionsT>(ctx)); }
void runFloorDiv(KernelContext &ctx) { runBinary<FloorDivOp>(ctx, "FLOOR_DIV", circle::ActivationFunctionType::NONE); }
void runFloorMod(KernelContext &ctx) { runBinary<FloorModOp>(ctx, "FLOOR_MOD", circle::ActivationFunctionType::NONE); }
void runPow(KernelContext &ctx) { runBinary<PowOp>(ctx, "POW", circle::ActivationFunctionType::NONE); }
void runSquaredDifference(KernelContext &ctx) {
  runBinary<SquaredDifferenceOp>(ctx, "SQUARED_DIFFERENCE", circle::ActivationFunctionType::NONE);
}
void runMaximum(KernelContext &ctx) { runBinary<MaximumOp, true>(ctx, "MAXIMUM", circle::ActivationFunctionType::NONE); }
void runMinimum(KernelContext &ctx) { runBinary<MinimumOp, true>(ctx, "MINIMUM", circle::ActivationFunctionType::NONE); }
void runPrelu(KernelContext &ctx) { runBinary<PreluOp>(ctx, "PRELU", circle::ActivationFunctionType::NONE); }

std::string checkArithmetic(const OpSignature &op) {
  return requireInputType(op, 0, {DType::Float32, DType::Int32, DType::Int64});
}
std::string checkNumeric(const OpSignature &op) {
  return requireInputType(op, 0,
                          {DType::Float32, DType::Int32, DType::Int64, DType::Int16, DType::Int8, DType::UInt8});
}
std::string checkFloat(const OpSignature &op) { return requireInputType(op, 0, {DType::Float32}); }

} // namespace

void registerBinaryKernels(KernelTable &table) {
  using B = circle::BuiltinOperator;
  table.add(B::ADD, runAdd, checkArithmetic, kInPlaceEitherInput);
  table.add(B::SUB, runSub, checkArithmetic, kInPlaceEitherInput);
  table.add(B::MUL, runMul, checkArithmetic, kInPlaceEitherInput);
  table.add(B::DIV, runDiv, checkArithmetic, kInPlaceEitherInput);
  table.add(B::FLOOR_DIV, runFloorDiv, checkArithmetic);
  table.add(B::FLOOR_MOD, runFloorMod, checkArithmetic);
  table.add(B::POW, runPow, checkArithmetic);
  table.add(B::SQUARED_DIFFERENCE, runSquaredDifference, checkArithmetic, kInPlaceEitherInput);
  table.add(B::MAXIMUM, runMaximum, checkNumeric, kInPlaceEitherInput);
  table.add(B::MINIMUM, runMinimum, checkNumeric, kInPlaceEitherInput);
  table.add(B::PRELU, runPrelu, checkFloat);
}

} // namespace tico::interp
