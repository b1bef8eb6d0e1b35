// Comparisons (EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL) and logical ops
// (LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT). Results are bool tensors stored as bytes 0/1.
#include "broadcast.h"
#include "dispatch.h"
#include "kernels/registrations.h"

namespace tico::interp {
namespace {

struct Equal {
  template <typename T> BoolByte operator()(T a, T b) const { return a == b; }
};
struct NotEqual {
  template <typename T> BoolByte operator()(T a, T b) const { return a != b; }
};
struct Less {
  template <typename T> BoolByte operator()(T a, T b) const { return a < b; }
};
struct LessEqual {
  template <typename T> BoolByte operator()(T a, T b) const { return a <= b; }
};
struct Greater {
  template <typename T> BoolByte operator()(T a, T b) const { return a > b; }
};
struct GreaterEqual {
  template <typename T> BoolByte operator()(T a, T b) const { return a >= b; }
};
struct LogicalAnd {
  BoolByte operator()(BoolByte a, BoolByte b) const { return (a != 0) & (b != 0); }
};
struct LogicalOr {
  BoolByte operator()(BoolByte a, BoolByte b) const { return (a != 0) | (b != 0); }
};

template <typename Op> void runComparison(KernelContext &ctx, const char *name) {
  const Tensor &a = ctx.input(0);
  const Tensor &b = ctx.input(1);
  check(a.dtype == b.dtype, std::string(name) + " operands have different dtypes: " + dtypeString(a.dtype) +
                                " and " + dtypeString(b.dtype));
  Tensor &out = ctx.allocateOutput(0, DType::Bool, broadcastShapes(a.shape, b.shape));
  dispatchNumericOrBool(a.dtype, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, BoolByte>) {
      // Normalise bool bytes so that 2 == 1 compares equal, as bools must.
      broadcastBinary<BoolByte, BoolByte, BoolByte>(a, b, out, [](BoolByte x, BoolByte y) {
        return Op{}(static_cast<BoolByte>(x != 0), static_cast<BoolByte>(y != 0));
      });
    } else {
      broadcastBinary<T, T, BoolByte>(a, b, out, Op{});
    }
  });
}

template <typename Op> void runLogical(KernelContext &ctx, const char *name) {
  const Tensor &a = ctx.input(0);
  const Tensor &b = ctx.input(1);
  check(a.dtype == DType::Bool && b.dtype == DType::Bool,
        std::string(name) + " needs bool operands, got " + dtypeString(a.dtype) + " and " + dtypeString(b.dtype));
  Tensor &out = ctx.allocateOutput(0, DType::Bool, broadcastShapes(a.shape, b.shape));
  broadcastBinary<BoolByte, BoolByte, BoolByte>(a, b, out, Op{});
}

void runLogicalNot(KernelContext &ctx) {
  const Tensor &a = ctx.input(0);
  check(a.dtype == DType::Bool, "LOGICAL_NOT needs a bool operand, got " + dtypeString(a.dtype));
  Tensor &out = ctx.allocateOutput(0, DType::Bool, a.shape);
  const BoolByte *in = a.as<BoolByte>();
  BoolByte *o = out.mut<BoolByte>();
  for (int64_t i = 0; i < a.numel(); ++i)
    o[i] = in[i] == 0;
}

std::string checkComparable(const OpSignature &op) {
  return requireInputType(op, 0, {DType::Float32, DType::Int32, DType::Int64, DType::Int16, DType::Int8,
                                  DType::UInt8, DType::Bool});
}
std::string checkBool(const OpSignature &op) { return requireInputType(op, 0, {DType::Bool}); }

} // namespace

void registerComparisonKernels(KernelTable &table) {
  using B = circle::BuiltinOperator;
  table.add(B::EQUAL, [](KernelContext &c) { runComparison<Equal>(c, "EQUAL"); }, checkComparable);
  table.add(B::NOT_EQUAL, [](KernelContext &c) { runComparison<NotEqual>(c, "NOT_EQUAL"); }, checkComparable);
  table.add(B::LESS, [](KernelContext &c) { runComparison<Less>(c, "LESS"); }, checkComparable);
  table.add(B::LESS_EQUAL, [](KernelContext &c) { runComparison<LessEqual>(c, "LESS_EQUAL"); }, checkComparable);
  table.add(B::GREATER, [](KernelContext &c) { runComparison<Greater>(c, "GREATER"); }, checkComparable);
  table.add(B::GREATER_EQUAL, [](KernelContext &c) { runComparison<GreaterEqual>(c, "GREATER_EQUAL"); },
            checkComparable);
  table.add(B::LOGICAL_AND, [](KernelContext &c) { runLogical<LogicalAnd>(c, "LOGICAL_AND"); }, checkBool);
  table.add(B::LOGICAL_OR, [](KernelContext &c) { runLogical<LogicalOr>(c, "LOGICAL_OR"); }, checkBool);
  table.add(B::LOGICAL_NOT, runLogicalNot, checkBool);
}

} // namespace tico::interp
