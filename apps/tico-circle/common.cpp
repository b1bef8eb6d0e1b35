// Helpers shared by the tico-circle subcommands.
#include "tool.h"

#include "tico/circle/reader.h"
#include "tico/circle/verify.h"
#include "tico/circle/writer.h"
#include "tico/support/error.h"
#include "tico/support/file.h"

#include <filesystem>

namespace tico::circle_tool {

CircleModel loadModel(const std::string &path, bool check_indices) {
  // Checked before opening: a FIFO would block the reader forever.
  requireRegularFile(path, "Circle file");
  CircleReadOptions options;
  options.check_indices = check_indices;
  return readCircleFile(path, options);
}

void saveModel(const CircleModel &model, const std::string &path, bool verify, const std::string &what) {
  if (verify)
    checkCircleModel(model, what + " would write an invalid model (use --no-verify to write it anyway)");
  writeCircleFile(model, path);
}

std::vector<std::string> splitCommaList(const std::string &text) {
  std::vector<std::string> out;
  std::string current;
  auto flush = [&] {
    const auto first = current.find_first_not_of(" \t");
    if (first != std::string::npos)
      out.push_back(current.substr(first, current.find_last_not_of(" \t") - first + 1));
    current.clear();
  };
  for (char c : text) {
    if (c == ',')
      flush();
    else
      current += c;
  }
  flush();
  return out;
}

std::string executableDir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::current_path().string() : exe.parent_path().string();
}

} // namespace tico::circle_tool
