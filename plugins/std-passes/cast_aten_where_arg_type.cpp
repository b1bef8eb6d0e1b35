// cast-aten-where-arg-type (CastATenWhereArgType): where(cond, a, b) whose two value operands
// are constants of different dtypes among int32 < int64 < float32 gets the lower one cast to
// the higher one, so SELECT_V2 sees one dtype. The original converter does this for buffers;
// here any constant qualifies (parameters, buffers, lifted and folded constants).
//
// Casting integers to float32 is exact only up to 2^24; a constant outside that range is an
// error naming it, as in the original (the cast would silently change values).
#include "pass_support.h"
#include "passes.h"

#include <cstring>

namespace tico::passes {
namespace {

int rankOf(DType t) {
  switch (t) {
  case DType::Int32:
    return 0;
  case DType::Int64:
    return 1;
  case DType::Float32:
    return 2;
  default:
    return -1;
  }
}

bool fitsFloat32(const TensorData &data) {
  constexpr double limit = 16777216.0; // 2^24
  std::vector<std::byte> bytes = data.contiguousBytes();
  auto check = [&](auto sample) {
    using T = decltype(sample);
    for (std::size_t i = 0; i + sizeof(T) <= bytes.size(); i += sizeof(T)) {
      T v;
      std::memcpy(&v, bytes.data() + i, sizeof(T));
      if (static_cast<double>(v) < -limit || static_cast<double>(v) > limit)
        return false;
    }
    return true;
  };
  return data.dtype == DType::Int32 ? check(int32_t{}) : check(int64_t{});
}

bool castWhereArgs(Node &matched, rewrite::Rewriter &rewriter) {
  Node *node = &matched;
  if (!isTensorValue(node->arg(1)) || !isTensorValue(node->arg(2)))
    return false;
  Value *a = node->input(1), *b = node->input(2);
  if (!a->isConstant() || !b->isConstant() || a->dtype() == b->dtype())
    return false;
  int ra = rankOf(a->dtype()), rb = rankOf(b->dtype());
  if (ra < 0 || rb < 0)
    return false;
  Value *to_cast = ra < rb ? a : b;
  DType target = ra < rb ? b->dtype() : a->dtype();
  if (target == DType::Float32 && !fitsFloat32(*to_cast->constant()))
    throw Error("cast-aten-where-arg-type: constant '" + to_cast->name() + "' (" +
                std::string(dtypeName(to_cast->dtype())) + ") of where node '" + node->name() +
                "' has values outside the range float32 represents exactly");
  Builder builder = rewriter.builderFor(*node);
  node->replaceInput(to_cast, builder.cast(to_cast, target));
  return true;
}

} // namespace

void registerCastAtenWhereArgType(Registrar &r) {
  r.addPass(sweepPass("cast-aten-where-arg-type",
                      "Cast the lower-ranked constant operand of where.self to the other's dtype", {"aten::where.self"},
                      castWhereArgs));
}

} // namespace tico::passes
