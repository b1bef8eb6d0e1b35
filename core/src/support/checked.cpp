#include "tico/support/checked.h"

namespace tico::detail {

std::string shapeListText(const std::vector<int64_t> &dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i)
    out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

void throwSizeProblem(std::string_view what, const std::vector<int64_t> &dims, std::string_view problem) {
  throw Error(std::string(what) + ": shape " + shapeListText(dims) + " " + std::string(problem));
}

} // namespace tico::detail
