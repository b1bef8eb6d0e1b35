#include "pipeline/yaml_limits.h"

#include "tico/support/error.h"

namespace tico::manifest {
namespace {

// Counts nodes as a walk meets them (an alias once per use) and gives up past the limit, so the
// walk itself is bounded by kMaxYamlNodes steps whatever the document holds.
bool withinLimit(const YAML::Node &node, std::size_t &seen) {
  if (++seen > kMaxYamlNodes)
    return false;
  if (node.IsSequence()) {
    for (const YAML::Node &child : node)
      if (!withinLimit(child, seen))
        return false;
  } else if (node.IsMap()) {
    for (const auto &entry : node)
      if (!withinLimit(entry.first, seen) || !withinLimit(entry.second, seen))
        return false;
  }
  return true;
}

} // namespace

void checkExpandedSize(const YAML::Node &root, const std::string &file) {
  std::size_t seen = 0;
  if (!withinLimit(root, seen))
    throw LocatedError({file, 1, 1}, "the document expands to more than " + std::to_string(kMaxYamlNodes) +
                                         " YAML nodes once its aliases are repeated (a manifest holds a few "
                                         "hundred); refusing it");
}

} // namespace tico::manifest
