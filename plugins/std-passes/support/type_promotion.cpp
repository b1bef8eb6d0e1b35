// PyTorch's dtype promotion (c10::promoteTypes, at::native::result_type) and broadcasting.
#include "type_rules.h"

#include "tico/ir/value.h"
#include "tico/support/error.h"

#include <algorithm>

namespace tico::passes {
namespace {

bool isSignedInt(DType t) {
  return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64;
}
bool isUnsignedInt(DType t) {
  return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}
bool isComplex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }

DType signedOfSize(std::size_t bytes) {
  switch (bytes) {
  case 1:
    return DType::Int8;
  case 2:
    return DType::Int16;
  case 4:
    return DType::Int32;
  default:
    return DType::Int64;
  }
}

DType toComplex(DType t) { return t == DType::Float64 ? DType::Complex128 : DType::Complex64; }

enum class Category { Bool, Integer, Floating, Complex };
Category categoryOf(DType t) {
  if (t == DType::Bool)
    return Category::Bool;
  if (isComplex(t))
    return Category::Complex;
  if (isFloating(t))
    return Category::Floating;
  return Category::Integer;
}

// A promotion chain may start empty (Unknown).
std::optional<DType> promoteSkipUnknown(DType a, DType b) {
  if (a == DType::Unknown)
    return b;
  if (b == DType::Unknown)
    return a;
  return promoteTypes(a, b);
}

// c10's combine_categories: the lower class only wins when its category is higher.
DType combineCategories(DType higher, DType lower) {
  if (higher == DType::Unknown)
    return lower;
  if (lower == DType::Unknown)
    return higher;
  if (isComplex(higher))
    return higher;
  if (isComplex(lower))
    return isFloating(higher) ? toComplex(higher) : lower;
  if (isFloating(higher))
    return higher;
  if (higher == DType::Bool || isFloating(lower))
    return promoteTypes(higher, lower).value_or(higher);
  return higher;
}

} // namespace

std::optional<DType> promoteTypes(DType a, DType b) {
  if (a == b)
    return a;
  if (a == DType::Unknown || b == DType::Unknown)
    return std::nullopt;
  if (a == DType::Bool)
    return b;
  if (b == DType::Bool)
    return a;
  if (isComplex(a) || isComplex(b)) {
    if (isComplex(a) && isComplex(b))
      return elementSize(a) >= elementSize(b) ? a : b;
    DType c = isComplex(a) ? a : b, other = isComplex(a) ? b : a;
    return other == DType::Float64 ? DType::Complex128 : c;
  }
  if (isFloating(a) || isFloating(b)) {
    if (isFloating(a) && isFloating(b)) {
      if ((a == DType::Float16 && b == DType::BFloat16) || (a == DType::BFloat16 && b == DType::Float16))
        return DType::Float32;
      return elementSize(a) >= elementSize(b) ? a : b;
    }
    return isFloating(a) ? a : b;
  }
  // Both integers.
  if (isSignedInt(a) == isSignedInt(b))
    return elementSize(a) >= elementSize(b) ? a : b;
  DType u = isUnsignedInt(a) ? a : b, s = isUnsignedInt(a) ? b : a;
  if (u == DType::UInt8)
    return elementSize(s) > 1 ? s : DType::Int16;
  if (elementSize(s) > elementSize(u))
    return s;
  if (elementSize(u) >= 8)
    return std::nullopt; // uint64 with a signed type: PyTorch raises
  return signedOfSize(elementSize(u) * 2);
}

DType numberDType(const Argument &number) {
  switch (number.kind()) {
  case Argument::Kind::Bool:
    return DType::Bool;
  case Argument::Kind::Int:
    return DType::Int64;
  case Argument::Kind::Float:
    return DType::Float32;
  default:
    throw Error(std::string("numberDType: argument of kind ") + Argument::kindName(number.kind()) +
                " is not a number");
  }
}

DType resultType(const std::vector<const Argument *> &operands) {
  DType dimensioned = DType::Unknown, zero_dim = DType::Unknown, wrapped = DType::Unknown;
  auto update = [](DType &acc, DType t) {
    auto p = promoteSkipUnknown(acc, t);
    if (p)
      acc = *p;
  };
  for (const Argument *a : operands) {
    if (a == nullptr || a->isNone())
      continue;
    if (a->isNumber()) {
      update(wrapped, numberDType(*a));
      continue;
    }
    if (!a->isValue())
      continue;
    const Value *v = a->asValue();
    if (!v->isTensor()) {
      // A symbolic scalar takes part like a Python number of its kind.
      update(wrapped, v->kind() == ValueKind::SymFloat ? DType::Float32
                      : v->kind() == ValueKind::SymBool ? DType::Bool
                                                        : DType::Int64);
      continue;
    }
    update(v->rank() > 0 ? dimensioned : zero_dim, v->dtype());
  }
  return combineCategories(combineCategories(dimensioned, zero_dim), wrapped);
}

} // namespace tico::passes
