// Reductions over a set of axes (second input, int32/int64, negative allowed, repeats ignored):
// MEAN, SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN (float32/int32/int64) and REDUCE_ANY,
// REDUCE_ALL (bool), with keep_dims. Float sums accumulate in double.
#include "dispatch.h"
#include "kernels/reduce_rows.h"
#include "kernels/registrations.h"
#include "parallel.h"

#include <cmath>
#include <limits>

namespace tico::interp {
namespace {

enum class Reduction { Mean, Sum, Prod, Max, Min, Any, All };

template <typename T> T reduceRow(const T *row, int64_t n, Reduction kind) {
  if constexpr (std::is_same_v<T, BoolByte>) {
    bool value = kind == Reduction::All;
    for (int64_t i = 0; i < n; ++i)
      value = kind == Reduction::All ? (value && row[i] != 0) : (value || row[i] != 0);
    return value ? 1 : 0;
  } else {
    switch (kind) {
    case Reduction::Mean:
    case Reduction::Sum: {
      if constexpr (std::is_floating_point_v<T>) {
        // Four partial sums: one chain of dependent double additions made a layer norm's MEAN
        // latency-bound (10 % of a CLIP-like run). The order depends on the row length only.
        double part[4] = {0.0, 0.0, 0.0, 0.0};
        int64_t i = 0;
        for (; i + 4 <= n; i += 4)
          for (int k = 0; k < 4; ++k)
            part[k] += row[i + k];
        for (; i < n; ++i)
          part[0] += row[i];
        const double sum = (part[0] + part[1]) + (part[2] + part[3]);
        return static_cast<T>(kind == Reduction::Mean ? sum / static_cast<double>(n) : sum);
      } else {
        uint64_t sum = 0; // wraps like the integer type
        for (int64_t i = 0; i < n; ++i)
          sum += static_cast<uint64_t>(static_cast<int64_t>(row[i]));
        const auto total = static_cast<T>(static_cast<int64_t>(sum));
        return kind == Reduction::Mean ? (n > 0 ? static_cast<T>(static_cast<int64_t>(sum) / n) : T(0)) : total;
      }
    }
    case Reduction::Prod: {
      if constexpr (std::is_floating_point_v<T>) {
        double product = 1.0;
        for (int64_t i = 0; i < n; ++i)
          product *= row[i];
        return static_cast<T>(product);
      } else {
        uint64_t product = 1;
        for (int64_t i = 0; i < n; ++i)
          product *= static_cast<uint64_t>(static_cast<int64_t>(row[i]));
        return static_cast<T>(static_cast<int64_t>(product));
      }
    }
    case Reduction::Max: {
      T best = std::numeric_limits<T>::lowest();
      if constexpr (std::is_floating_point_v<T>)
        best = -std::numeric_limits<T>::infinity();
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_floating_point_v<T>)
          best = (row[i] > best || std::isnan(row[i])) ? row[i] : best;
        else
          best = row[i] > best ? row[i] : best;
      }
      return best;
    }
    case Reduction::Min: {
      T best = std::numeric_limits<T>::max();
      if constexpr (std::is_floating_point_v<T>)
        best = std::numeric_limits<T>::infinity();
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_floating_point_v<T>)
          best = (row[i] < best || std::isnan(row[i])) ? row[i] : best;
        else
          best = row[i] < best ? row[i] : best;
      }
      return best;
    }
    default: break;
    }
    return T{};
  }
}

void runReduce(KernelContext &ctx, Reduction kind, const char *name) {
  const Tensor &input = ctx.input(0);
  const std::vector<int64_t> axes = integerValues(ctx.input(1));
  const bool keep_dims = ctx.options<circle::ReducerOptionsT>().keep_dims;
  ReductionLayout layout = reductionLayout(input, axes);
  Tensor &out = ctx.allocateOutput(0, input.dtype, keep_dims ? layout.kept_dims_shape : layout.kept_shape);
  auto body = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *rows = layout.rows.template as<T>();
    T *o = out.mut<T>();
    parallelFor(layout.outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, layout.inner)),
                [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        o[r] = reduceRow<T>(rows + r * layout.inner, layout.inner, kind);
    });
  };
  if (kind == Reduction::Any || kind == Reduction::All) {
    check(input.dtype == DType::Bool, std::string(name) + " needs a bool input, got " + dtypeString(input.dtype));
    body(TypeTag<BoolByte>{});
  } else {
    dispatchArithmetic(input.dtype, name, body);
  }
}

std::string checkArithmetic(const OpSignature &op) {
  return requireInputType(op, 0, {DType::Float32, DType::Int32, DType::Int64});
}
std::string checkBool(const OpSignature &op) { return requireInputType(op, 0, {DType::Bool}); }

} // namespace

void registerReduceKernels(KernelTable &table) {
  using B = circle::BuiltinOperator;
  table.add(B::MEAN, [](KernelContext &c) { runReduce(c, Reduction::Mean, "MEAN"); }, checkArithmetic);
  table.add(B::SUM, [](KernelContext &c) { runReduce(c, Reduction::Sum, "SUM"); }, checkArithmetic);
  table.add(B::REDUCE_PROD, [](KernelContext &c) { runReduce(c, Reduction::Prod, "REDUCE_PROD"); }, checkArithmetic);
  table.add(B::REDUCE_MAX, [](KernelContext &c) { runReduce(c, Reduction::Max, "REDUCE_MAX"); }, checkArithmetic);
  table.add(B::REDUCE_MIN, [](KernelContext &c) { runReduce(c, Reduction::Min, "REDUCE_MIN"); }, checkArithmetic);
  table.add(B::REDUCE_ANY, [](KernelContext &c) { runReduce(c, Reduction::Any, "REDUCE_ANY"); }, checkBool);
  table.add(B::REDUCE_ALL, [](KernelContext &c) { runReduce(c, Reduction::All, "REDUCE_ALL"); }, checkBool);
}

} // namespace tico::interp
