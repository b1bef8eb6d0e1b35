#include "onert_forms.h"

#include <algorithm>

namespace tico::circle_passes::onert_forms {

bool Extent::isStatic() const {
  return std::none_of(signature.begin(), signature.end(), [](int32_t d) { return d < 0; });
}

Extent extentOf(const CircleTensor &t) {
  Extent e{t.shape, {}};
  if (t.shape_signature.size() == t.shape.size() && isDynamic(t))
    e.signature = t.shape_signature;
  return e;
}

Extent broadcastExtents(const Extent &a, const Extent &b) {
  const std::size_t rank = std::max(a.rank(), b.rank());
  Extent out{std::vector<int32_t>(rank, 1), {}};
  const bool dynamic = !a.isStatic() || !b.isStatic();
  if (dynamic)
    out.signature.assign(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    // Dim i counted from the right in each operand; absent dims are 1.
    auto dimOf = [&](const Extent &e) -> std::pair<int32_t, bool> {
      if (i + e.rank() < rank)
        return {1, false};
      std::size_t d = i + e.rank() - rank;
      return {e.shape[d], e.dynamicAt(d)};
    };
    auto [sa, da] = dimOf(a);
    auto [sb, db] = dimOf(b);
    // A static dim other than 1 decides; otherwise a dynamic dim stays dynamic.
    if (!da && sa != 1) {
      out.shape[i] = sa;
      if (dynamic)
        out.signature[i] = sa;
    } else if (!db && sb != 1) {
      out.shape[i] = sb;
      if (dynamic)
        out.signature[i] = sb;
    } else if (da || db) {
      out.shape[i] = std::max(da ? sa : 1, db ? sb : 1);
      out.signature[i] = -1;
    }
  }
  return out;
}

Extent withDim(const Extent &e, std::size_t d, int32_t size) {
  Extent out = e;
  out.shape[d] = size;
  if (!out.signature.empty()) {
    out.signature[d] = size;
    if (out.isStatic())
      out.signature.clear();
  }
  return out;
}

int32_t newTensor(SubgraphEditor &e, circle::TensorType type, const Extent &extent, const std::string &name) {
  CircleTensor t;
  t.type = type;
  t.shape = extent.shape;
  if (!extent.isStatic())
    t.shape_signature = extent.signature;
  t.name = name;
  return e.addTensor(std::move(t));
}

int32_t emit(SubgraphEditor &e, BuiltinOperator code, std::vector<int32_t> inputs, circle::TensorType type,
             const Extent &extent, const std::string &name, circle::BuiltinOptionsUnion options, int anchor) {
  int32_t out = newTensor(e, type, extent, name);
  e.addOp(code, std::move(inputs), {out}, std::move(options), anchor);
  return out;
}

int32_t scalarConstant(SubgraphEditor &e, circle::TensorType type, double value, const std::string &name) {
  return e.addConstant(type, {}, payloadFromDoubles(type, {}, {value}), name);
}

int32_t int32Vector(SubgraphEditor &e, const std::vector<int32_t> &values, const std::string &name) {
  return e.addInt32Constant(values, {static_cast<int32_t>(values.size())}, name);
}

bool isIntegerType(circle::TensorType type) {
  using T = circle::TensorType;
  return type == T::INT8 || type == T::UINT8 || type == T::INT16 || type == T::INT32 || type == T::INT64;
}

bool isPlain(const SubgraphEditor &e, int32_t t) {
  return e.validTensor(t) && !isQuantized(e.tensor(t)) && !e.tensor(t).is_variable;
}

} // namespace tico::circle_passes::onert_forms
