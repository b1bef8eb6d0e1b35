// tico-run --incremental: where the manifest goes beside the Circle file (the strategies
// themselves: tico/pipeline/incremental.h, shared with the Python package).
#include "tool.h"

#include <filesystem>

namespace tico::run {

std::string incrementalSidecarPath(const std::string &output) {
  return std::filesystem::path(output).replace_extension(".incremental.json").string();
}

} // namespace tico::run
