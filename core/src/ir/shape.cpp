#include "tico/ir/shape.h"

namespace tico {

bool isStatic(const Shape &shape) {
  for (const auto &d : shape)
    if (d.isSymbolic())
      return false;
  return true;
}

int64_t numElementsHint(const Shape &shape) {
  int64_t n = 1;
  for (const auto &d : shape)
    n *= d.value();
  return n;
}

std::vector<int64_t> hintSizes(const Shape &shape) {
  std::vector<int64_t> out;
  out.reserve(shape.size());
  for (const auto &d : shape)
    out.push_back(d.value());
  return out;
}

Shape staticShape(const std::vector<int64_t> &sizes) {
  Shape out;
  out.reserve(sizes.size());
  for (auto s : sizes)
    out.emplace_back(s);
  return out;
}

std::string shapeString(const Shape &shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ", ";
    out += shape[i].isSymbolic() ? shape[i].expr() : std::to_string(shape[i].value());
  }
  return out + "]";
}

} // namespace tico
