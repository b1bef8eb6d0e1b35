// A YAML alias repeats its anchor's node wherever it is used, so nine levels of ten aliases
// make a billion nodes out of a few hundred bytes ("billion laughs"). yaml-cpp shares the
// repeated nodes, so parsing stays quick, but every walk over the document (the quote check,
// the manifest reader) sees the expansion. This check walks first and stops at a limit.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>

namespace tico::manifest {

// A pipeline manifest holds a few hundred nodes; this leaves ample room.
inline constexpr std::size_t kMaxYamlNodes = 100000;

// Throws LocatedError (at `file`'s first line) when `root`, with every alias expanded, holds
// more than kMaxYamlNodes nodes.
void checkExpandedSize(const YAML::Node &root, const std::string &file);

} // namespace tico::manifest
