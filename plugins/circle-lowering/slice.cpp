// slice.Tensor -> STRIDED_SLICE with int32 begin / end / strides.
//
// Only the sliced dim has real bounds; every other dim is taken whole through begin_mask and
// end_mask. On a static dim the bounds are normalised and clamped exactly as PyTorch does; on
// a symbolic dim negative bounds are left to STRIDED_SLICE (which also counts them from the
// end and clamps), and an end at or past INT32_MAX (PyTorch writes INT64_MAX for "to the end")
// becomes an end_mask bit. Symbolic bounds are read from their SymInt tensors, except a bound
// that is the sliced dim's own size minus a constant (x[:, :x.shape[1] - 1]): that is the
// constant negative bound STRIDED_SLICE counts from the end (x[:, :-1]), which needs no
// runtime SHAPE arithmetic and leaves the slice's operands constant, so runtimes infer the
// output shape from the input's (onert 0.2 fails a data-dependent STRIDED_SLICE whose output
// has a dynamic shape_signature). For the same reason a prefix of a static dim whose length is
// another tensor's dim (a position-id buffer cut to the sequence: ids[:, :seq]) is a GATHER of a
// value-free iota of that dim, when the dim's range proves the prefix fits.
#include "lowerings.h"
#include "support.h"

#include "tico/ir/graph.h"
#include "tico/ir/sym_expr.h"
#include "tico/ops/torch_ops.h"

#include <cctype>
#include <limits>
#include <map>

namespace tico::lowering {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// The coefficients of an affine expression in canonical infix text ("s70 + 1", "2*s3 - 4",
// "s70 + 1 + -1"; the constant under the key ""), or nullopt for anything else (products of
// symbols, //, %, Max, Min, parentheses). SymExpr keeps sums unsimplified, so comparing two
// affine bounds term by term is what shows that they differ by a constant.
std::optional<std::map<std::string, int64_t>> affineTerms(const std::string &text) {
  std::map<std::string, int64_t> terms;
  int64_t sign = 1;
  bool expect_term = true;
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
    std::size_t end = text.find(' ', pos);
    if (end == std::string::npos)
      end = text.size();
    const std::string token = text.substr(pos, end - pos);
    pos = end;
    if (token.empty())
      continue;
    if (!expect_term) {
      if (token != "+" && token != "-")
        return std::nullopt;
      sign = token == "+" ? 1 : -1;
      expect_term = true;
      continue;
    }
    int64_t coefficient = sign;
    std::string symbol;
    std::size_t start = 0;
    while (start <= token.size()) {
      std::size_t star = token.find('*', start);
      const std::string factor = token.substr(start, star == std::string::npos ? std::string::npos : star - start);
      if (factor.empty())
        return std::nullopt;
      const bool number = factor.find_first_not_of("-0123456789") == std::string::npos;
      if (number) {
        coefficient *= std::stoll(factor);
      } else {
        for (char c : factor)
          if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
            return std::nullopt;
        if (!symbol.empty())
          return std::nullopt;
        symbol = factor;
      }
      if (star == std::string::npos)
        break;
      start = star + 1;
    }
    terms[symbol] += coefficient;
    expect_term = false;
  }
  if (expect_term)
    return std::nullopt;
  return terms;
}

// end - size when both are affine and differ by a constant, else nullopt.
std::optional<int64_t> constantDifference(const SymExpr &end, const SymExpr &size) {
  auto e = affineTerms(end.str());
  auto d = affineTerms(size.str());
  if (!e || !d)
    return std::nullopt;
  for (const auto &[symbol, coefficient] : *d)
    (*e)[symbol] -= coefficient;
  int64_t k = 0;
  for (const auto &[symbol, coefficient] : *e) {
    if (symbol.empty())
      k = coefficient;
    else if (coefficient != 0)
      return std::nullopt;
  }
  return k;
}

// k when the SymInt `bound` is exactly `size` + k with k <= 0 and size + k >= 0 at the smallest
// sizes the export allows (so PyTorch never wraps the bound a second time), else nullopt.
std::optional<int64_t> offsetFromSize(const Node &node, const Value *bound, const Dim &size) {
  if (!size.isSymbolic() || bound->symExpr().empty())
    return std::nullopt;
  try {
    SymExpr end = SymExpr::parse(bound->symExpr());
    SymExpr dim = SymExpr::parse(size.expr());
    // Smallest sizes the export allows (0 for a symbol without a recorded range).
    std::map<std::string, int64_t> lowest;
    for (const SymExpr *expr : {&end, &dim})
      for (const std::string &symbol : expr->symbols()) {
        const Graph *graph = node.graph();
        auto range = graph ? graph->symbols().find(symbol) : std::map<std::string, SymbolRange>::const_iterator{};
        lowest[symbol] = graph && range != graph->symbols().end() ? range->second.min : 0;
      }
    auto e = end.evaluate(lowest);
    auto d = dim.evaluate(lowest);
    if (!e || !d)
      return std::nullopt;
    int64_t k = *e - *d;
    if (k > 0 || *d + k < 0)
      return std::nullopt;
    // Exact, not sampled: the bound's canonical text must be the size's plus k, or both affine
    // with the same symbol coefficients (x[:, :s] of a size s + 1 dim).
    if (SymExpr::parse("(" + size.expr() + ") + " + std::to_string(k)).str() != end.str() &&
        !(k == 0 && dim.str() == end.str()) && constantDifference(end, dim) != std::optional<int64_t>(k))
      return std::nullopt;
    return k;
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

class Slice final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->rank() == 0)
      return "slice of a 0-D tensor";
    normalizeDim(node.arg("dim").asInt(), in->rank());
    const Argument &step = node.arg("step");
    if (!step.isInt())
      return "slice with a symbolic step is not supported";
    if (step.asInt() <= 0)
      return "slice step must be positive";
    for (const char *name : {"start", "end"}) {
      const Argument &bound = node.arg(name);
      if (!bound.isNone() && !bound.isInt() && !(bound.isValue() && bound.asValue()->kind() == ValueKind::SymInt))
        return std::string("slice ") + name + " must be an int or a SymInt";
    }
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const std::string base = node.name();
    int64_t rank = in->rank();
    int64_t dim = normalizeDim(node.arg("dim").asInt(), rank);
    const Dim &size = in->shape()[static_cast<std::size_t>(dim)];
    const Argument &start = node.arg("start");
    const Argument &end = node.arg("end");

    std::vector<VectorPiece> begin(static_cast<std::size_t>(rank)), finish(static_cast<std::size_t>(rank));
    std::vector<int64_t> strides(static_cast<std::size_t>(rank), 1);
    strides[static_cast<std::size_t>(dim)] = node.arg("step").asInt();
    int32_t begin_mask = 0, end_mask = 0;
    for (int64_t i = 0; i < rank; ++i)
      if (i != dim) {
        begin_mask |= 1 << i;
        end_mask |= 1 << i;
      }

    if (lowerPrefixAsGather(node, emit))
      return;

    VectorPiece &b = begin[static_cast<std::size_t>(dim)];
    VectorPiece &e = finish[static_cast<std::size_t>(dim)];
    std::optional<int64_t> start_from_end = start.isValue() ? offsetFromSize(node, start.asValue(), size) : std::nullopt;
    std::optional<int64_t> end_from_end = end.isValue() ? offsetFromSize(node, end.asValue(), size) : std::nullopt;
    if (start_from_end && *start_from_end == 0) {
      // Starts at the end: an empty slice; begin_mask would start at 0, so count from the end.
      b.kind = VectorPiece::Kind::Symbol;
      b.symbol = start.asValue();
    } else if (start_from_end) {
      b.value = *start_from_end;
    } else if (start.isValue()) {
      b.kind = VectorPiece::Kind::Symbol;
      b.symbol = start.asValue();
    } else {
      b.value = start.isNone() ? 0 : start.asInt();
    }
    if (end_from_end && *end_from_end == 0) {
      end_mask |= 1 << dim;
    } else if (end_from_end) {
      e.value = *end_from_end;
    } else if (end.isValue()) {
      e.kind = VectorPiece::Kind::Symbol;
      e.symbol = end.asValue();
    } else if (end.isNone() || end.asInt() >= kInt32Max) {
      end_mask |= 1 << dim;
    } else {
      e.value = end.asInt();
    }

    if (size.isStatic()) {
      int64_t n = size.value();
      auto clamp = [n](int64_t v) {
        if (v < 0)
          v += n;
        return std::clamp<int64_t>(v, 0, n);
      };
      if (b.kind == VectorPiece::Kind::Constant)
        b.value = clamp(b.value);
      if (e.kind == VectorPiece::Kind::Constant && !(end_mask & (1 << dim)))
        e.value = std::max(clamp(e.value), b.kind == VectorPiece::Kind::Constant ? b.value : 0);
    } else {
      // STRIDED_SLICE clamps out-of-range bounds itself; only keep them inside int32.
      for (VectorPiece *p : {&b, &e})
        if (p->kind == VectorPiece::Kind::Constant)
          p->value = std::clamp<int64_t>(p->value, std::numeric_limits<int32_t>::min(), kInt32Max);
    }

    circle::StridedSliceOptionsT slice;
    slice.begin_mask = begin_mask;
    slice.end_mask = end_mask;
    int32_t begin_t = emitIntVector(emit, begin, base + "_begin");
    int32_t end_t = emitIntVector(emit, finish, base + "_end");
    int32_t strides_t = emit.constInt32(toInt32(strides, "step"), base + "_strides");
    emitOp(emit, circle::BuiltinOperator::STRIDED_SLICE, {emit.tensor(in), begin_t, end_t, strides_t}, node.output(),
           options(std::move(slice)));
  }

private:
  // x[..., :n] along a static dim of size N, n a dim of another tensor bounded by N:
  // GATHER(x, iota(n)) along the dim. The iota's shape follows from that tensor's shape, so the
  // result's does too, where STRIDED_SLICE with an end read at run time would not.
  static bool lowerPrefixAsGather(const Node &node, CircleEmitter &emit) {
    const Value *in = node.input(0);
    const int64_t dim = normalizeDim(node.arg("dim").asInt(), in->rank());
    const Dim &size = in->shape()[static_cast<std::size_t>(dim)];
    const Argument &start = node.arg("start");
    const Argument &end = node.arg("end");
    if (!size.isStatic() || node.arg("step").asInt() != 1 || !end.isValue() || !node.graph())
      return false;
    if (!start.isNone() && !(start.isInt() && start.asInt() == 0))
      return false;
    auto length = resolveSymbol(end.asValue());
    if (!length || length->kind != VectorPiece::Kind::InputDim || length->input == in)
      return false;
    auto bound = upperBound(*node.graph(), length->input->shape()[static_cast<std::size_t>(length->value)]);
    if (!bound || *bound > size.value() || *bound > kMaxConvolvedIota)
      return false;
    int32_t positions = emitIotaOfDim(emit, length->input, length->value, DType::Int32, bound, node.name() + "_prefix");
    circle::GatherOptionsT gather;
    gather.axis = toInt32(dim, "axis");
    emitOp(emit, circle::BuiltinOperator::GATHER, {emit.tensor(in), positions}, node.output(),
           options(std::move(gather)));
    return true;
  }
};

} // namespace

void registerSlice(Registrar &r) {
  registerFor(r, {ops::aten::slice_Tensor, ops::aten::slice_copy_Tensor}, "STRIDED_SLICE (int32 begin/end/strides)",
              std::make_shared<Slice>());
}

} // namespace tico::lowering
