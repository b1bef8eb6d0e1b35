// CAST between bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32 and float64;
// the target is the declared output dtype. Floats become integers by truncation toward zero
// (NaN -> 0, values beyond int64 saturate, then wrap into narrower types like PyTorch on x86);
// anything becomes bool as `!= 0`.
#include "half.h"
#include "kernels/registrations.h"

#include <cmath>
#include <limits>

namespace tico::interp {
namespace {

// Element codecs: Value is double for floating types and int64_t for the others.
template <typename Storage, typename Value> struct Plain {
  using storage = Storage;
  using value = Value;
  static Value load(Storage s) { return static_cast<Value>(s); }
};
struct BoolCodec {
  using storage = uint8_t;
  using value = int64_t;
  static int64_t load(uint8_t s) { return s != 0; }
};
struct HalfCodec {
  using storage = uint16_t;
  using value = double;
  static double load(uint16_t s) { return halfToFloat(s); }
};
struct BFloat16Codec {
  using storage = uint16_t;
  using value = double;
  static double load(uint16_t s) { return bfloat16ToFloat(s); }
};

int64_t truncateToInt64(double v) {
  if (std::isnan(v))
    return 0;
  if (v >= 9223372036854775807.0)
    return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

template <typename Codec, typename V> typename Codec::storage store(V v) {
  using S = typename Codec::storage;
  if constexpr (std::is_same_v<Codec, BoolCodec>) {
    return v != 0 ? 1 : 0;
  } else if constexpr (std::is_same_v<Codec, HalfCodec>) {
    return floatToHalf(static_cast<float>(v));
  } else if constexpr (std::is_same_v<Codec, BFloat16Codec>) {
    return floatToBFloat16(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<S>) {
    return static_cast<S>(v);
  } else if constexpr (std::is_floating_point_v<V>) {
    return static_cast<S>(truncateToInt64(v));
  } else {
    return static_cast<S>(v);
  }
}

template <typename F> void withCodec(DType dtype, F &&f) {
  switch (dtype) {
  case DType::Bool: return f(BoolCodec{});
  case DType::UInt8: return f(Plain<uint8_t, int64_t>{});
  case DType::Int8: return f(Plain<int8_t, int64_t>{});
  case DType::Int16: return f(Plain<int16_t, int64_t>{});
  case DType::Int32: return f(Plain<int32_t, int64_t>{});
  case DType::Int64: return f(Plain<int64_t, int64_t>{});
  case DType::Float16: return f(HalfCodec{});
  case DType::BFloat16: return f(BFloat16Codec{});
  case DType::Float32: return f(Plain<float, double>{});
  case DType::Float64: return f(Plain<double, double>{});
  default: throw Error("CAST does not support " + dtypeString(dtype));
  }
}

void runCast(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const DType target = ctx.outputType(0);
  Tensor &out = ctx.allocateOutput(0, target, input.shape);
  withCodec(input.dtype, [&](auto from) {
    using From = decltype(from);
    withCodec(target, [&](auto to) {
      using To = decltype(to);
      const auto *in = input.as<typename From::storage>();
      auto *o = out.mut<typename To::storage>();
      if constexpr (std::is_same_v<From, To>) {
        for (int64_t i = 0; i < input.numel(); ++i)
          o[i] = in[i];
      } else {
        for (int64_t i = 0; i < input.numel(); ++i)
          o[i] = store<To>(From::load(in[i]));
      }
    });
  });
}

std::string checkCast(const OpSignature &op) {
  const std::initializer_list<DType> supported = {DType::Bool,    DType::UInt8,    DType::Int8,    DType::Int16,
                                                  DType::Int32,   DType::Int64,    DType::Float16, DType::BFloat16,
                                                  DType::Float32, DType::Float64};
  if (auto reason = requireInputType(op, 0, supported); !reason.empty())
    return reason;
  const DType out = op.outputType(0);
  if (std::find(supported.begin(), supported.end(), out) == supported.end())
    return "output is " + dtypeString(out);
  return "";
}

} // namespace

void registerCastKernel(KernelTable &table) { table.add(circle::BuiltinOperator::CAST, runCast, checkCast); }

} // namespace tico::interp
