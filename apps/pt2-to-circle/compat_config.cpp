#include "compat_config.h"

#include "tico/support/error.h"
#include "tico/support/file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

namespace tico::compat {
namespace {

constexpr const char *kCircleOptimize = "circle_optimize";

SourceLocation locationOf(const std::string &file, const YAML::Mark &mark) {
  return SourceLocation{file, mark.line + 1, mark.column + 1};
}

// A plain (unquoted) scalar the original's YAML 1.1 loader reads as a boolean.
std::optional<bool> yaml11Bool(const YAML::Node &node) {
  if (!node.IsScalar() || node.Tag() != "?")
    return std::nullopt;
  const std::string &text = node.Scalar();
  for (const char *word : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"})
    if (text == word)
      return true;
  for (const char *word : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"})
    if (text == word)
      return false;
  return std::nullopt;
}

std::string describe(const YAML::Node &node) {
  if (node.IsNull())
    return "nothing";
  if (node.IsSequence())
    return "a list";
  if (node.IsMap())
    return "a mapping";
  return (node.Tag() == "?" ? "'" : "\"") + node.Scalar() + (node.Tag() == "?" ? "'" : "\"");
}

class Problems {
public:
  explicit Problems(std::string file) : file_(std::move(file)) {}
  void add(const YAML::Mark &mark, const std::string &message) {
    lines_.push_back(locationOf(file_, mark).str() + ": error: " + message);
  }
  // Appended once after the problems (e.g. why unknown keys are refused).
  void note(const std::string &message) { note_ = file_ + ": note: " + message; }
  void throwIfAny() const {
    if (lines_.empty())
      return;
    std::string text;
    for (const auto &line : lines_)
      text += (text.empty() ? "" : "\n") + line;
    if (!note_.empty())
      text += "\n" + note_;
    throw Error(text);
  }

private:
  std::string file_;
  std::vector<std::string> lines_;
  std::string note_;
};

void checkVersion(const YAML::Node &root, const std::string &name) {
  const std::string latest = std::string("(latest: \"") + kLatestConfigVersion + "\")";
  const YAML::Node version = root["version"];
  if (!version || version.IsNull())
    throw Error(name + ": error: 'version' field must be provided in the config file " + latest);
  const SourceLocation where = locationOf(name, version.Mark());
  if (!version.IsScalar())
    throw LocatedError(where, "unsupported version (" + describe(version) + ") " + latest);
  if (version.Scalar() == kLatestConfigVersion && version.Tag() == "?")
    // Unquoted, 1.0 is a number to the original's loader, which compares the version with the
    // text "1.0" and so rejects it; say how to write it instead of a bare "unsupported".
    throw LocatedError(where, "unsupported version 1.0, a number: write version: \"1.0\", a string (the "
                              "original converter rejects the number too)");
  if (version.Scalar() != kLatestConfigVersion)
    throw LocatedError(where, "unsupported version '" + version.Scalar() + "' " + latest);
}

} // namespace

CompatRequests applyCompatConfigText(const std::string &text, const std::string &name, CompileConfig &config) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception &e) {
    throw LocatedError(locationOf(name, e.mark), "invalid YAML: " + e.msg);
  }
  if (!root.IsMap())
    throw Error(name + ": error: the config file must be a mapping of 'version' and compile options, got " +
                describe(root));
  checkVersion(root, name);

  Problems problems(name);
  std::set<std::string> seen;
  CompileConfig updated = config;
  CompatRequests requests;
  for (const auto &entry : root) {
    const YAML::Node &key = entry.first;
    const YAML::Node &value = entry.second;
    if (!key.IsScalar()) {
      problems.add(key.Mark(), "config keys must be names, got " + describe(key));
      continue;
    }
    const std::string field = key.Scalar();
    if (!seen.insert(field).second) {
      problems.add(key.Mark(), "duplicate key '" + field + "'");
      continue;
    }
    if (field == "version")
      continue;
    std::vector<std::string> fields = CompileConfig::fieldNames();
    fields.push_back(kCircleOptimize);
    if (std::find(fields.begin(), fields.end(), field) == fields.end()) {
      problems.add(key.Mark(), "unknown config key '" + field + "'" + didYouMean(field, fields));
      problems.note("the original pt2-to-circle silently ignored unknown keys; tico refuses them so that a "
                    "misspelt option cannot go unnoticed");
      continue;
    }
    const std::optional<bool> flag = yaml11Bool(value);
    if (!flag) {
      problems.add(value.Mark(), "'" + field + "' must be true or false, got " + describe(value));
      continue;
    }
    if (field == kCircleOptimize)
      requests.circle_optimize = *flag;
    else
      updated.set(field, *flag);
  }
  problems.throwIfAny();
  config = updated;
  return requests;
}

CompatRequests applyCompatConfig(const std::string &path, CompileConfig &config) {
  return applyCompatConfigText(readRegularFile(path, "config file"), path, config);
}

} // namespace tico::compat
