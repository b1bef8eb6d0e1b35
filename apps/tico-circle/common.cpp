// Helpers shared by the tico-circle subcommands.
#include "tool.h"

#include "tico/circle/reader.h"
#include "tico/circle/verify.h"
#include "tico/circle/writer.h"
#include "tico/support/error.h"

#include <filesystem>

namespace tico::circle_tool {

CircleModel loadModel(const std::string &path, bool check_indices) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error("'" + path + "' does not exist");
  if (std::filesystem::is_directory(path, ec))
    throw Error("'" + path + "' is a directory, not a Circle file");
  CircleReadOptions options;
  options.check_indices = check_indices;
  return readCircleFile(path, options);
}

void saveModel(const CircleModel &model, const std::string &path, bool verify, const std::string &what) {
  if (verify)
    checkCircleModel(model, what + " would write an invalid model (use --no-verify to write it anyway)");
  writeCircleFile(model, path);
}

std::string operatorName(const CircleModel &model, uint32_t opcode_index) {
  if (opcode_index >= model.operator_codes.size())
    return "operator code #" + std::to_string(opcode_index);
  const CircleOperatorCode &code = model.operator_codes[opcode_index];
  const auto builtin = static_cast<circle::BuiltinOperator>(code.builtin_code);
  if (builtin == circle::BuiltinOperator::CUSTOM)
    return "CUSTOM(" + code.custom_code + ")";
  const char *name = circle::EnumNameBuiltinOperator(builtin);
  if (name && *name)
    return name;
  return "operator code " + std::to_string(code.builtin_code);
}

std::string tensorTypeText(const CircleTensor &tensor) {
  const char *type = circle::EnumNameTensorType(tensor.type);
  std::string text = type && *type ? type : "type" + std::to_string(static_cast<int>(tensor.type));
  for (auto &c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  text += "[";
  for (std::size_t i = 0; i < tensor.shape.size(); ++i) {
    if (i)
      text += ",";
    const bool dynamic = i < tensor.shape_signature.size() && tensor.shape_signature[i] < 0;
    text += dynamic ? "?" : std::to_string(tensor.shape[i]);
  }
  return text + "]";
}

uint64_t tensorPayloadBytes(const CircleModel &model, const CircleTensor &tensor) {
  if (tensor.buffer >= model.buffers.size() || !model.buffers[tensor.buffer].data)
    return 0;
  return model.buffers[tensor.buffer].data->nbytes();
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
