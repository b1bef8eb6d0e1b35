// yaml-cpp accepts a quoted scalar that is never closed: the scalar silently runs to the end
// of the file, and the mistake surfaces later as a confusing value error ("unsupported
// manifest schema '1 stages: [] '"). This check finds such scalars in a parsed document.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace tico::manifest {

// Throws LocatedError ("invalid YAML: unterminated ... string") at the opening quote of the
// first quoted scalar (key or value) of `root` whose closing quote is missing from `text`.
void checkQuotesClosed(const YAML::Node &root, std::string_view text, const std::string &file);

} // namespace tico::manifest
