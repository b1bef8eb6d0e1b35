// Reading a pipeline manifest from YAML. Every key is checked against the keys the format
// defines, so a misspelt key is an error instead of being silently ignored.
#include "tico/pipeline/manifest.h"

#include "pipeline/manifest_syntax.h"
#include "pipeline/yaml_limits.h"
#include "pipeline/yaml_quotes.h"
#include "tico/support/file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace tico {

namespace {

using manifest::PlainScalar;

class ManifestReader {
public:
  explicit ManifestReader(std::string file) : file_(std::move(file)) {}

  Manifest read(const YAML::Node &root) {
    Manifest out;
    if (!root.IsDefined() || root.IsNull())
      error(root, "the manifest is empty; it needs at least 'schema: " +
                      std::string(manifest::kSchemaVersion) + "'");
    if (!root.IsMap())
      error(root, "a pipeline manifest must be a YAML map with the keys schema, config, "
                  "calibration, verify_each and stages");
    checkKeys(root, {"schema", "config", "calibration", "verify_each", "stages"}, "manifest");

    YAML::Node schema = root["schema"];
    if (!schema)
      error(root, "missing required key 'schema' (expected 'schema: " +
                      std::string(manifest::kSchemaVersion) + "')");
    std::string version = scalarText(schema, "schema");
    if (version != manifest::kSchemaVersion)
      error(schema, "unsupported manifest schema '" + version + "'; this tico reads '" +
                        manifest::kSchemaVersion + "'");

    if (YAML::Node config = root["config"])
      readConfig(config, out.config);
    if (YAML::Node calibration = root["calibration"])
      readCalibration(calibration, out.calibration);
    if (YAML::Node verify = root["verify_each"])
      out.verify_each = boolean(verify, "verify_each");
    if (YAML::Node stages = root["stages"]) {
      if (!stages.IsNull() && !stages.IsSequence())
        error(stages, "'stages' must be a list of stages");
      std::map<std::string, SourceLocation> seen;
      for (const auto &node : stages) {
        Stage stage = readStage(node);
        auto [it, inserted] = seen.emplace(stage.name, stage.where);
        if (!inserted)
          throw LocatedError(stage.where, "duplicate stage name '" + stage.name +
                                              "' (first defined at " + it->second.str() + ")");
        manifest::checkStageCanFollow(out.stages, stage);
        out.stages.push_back(std::move(stage));
      }
    }
    return out;
  }

private:
  SourceLocation location(const YAML::Node &node) const {
    SourceLocation where{file_, 1, 1};
    if (node.IsDefined()) {
      YAML::Mark mark = node.Mark();
      if (mark.line >= 0) {
        where.line = mark.line + 1;
        where.column = mark.column + 1;
      }
    }
    return where;
  }
  // Null values have no useful mark of their own (yaml-cpp points past them), so errors about
  // them point at their key.
  SourceLocation location(const YAML::Node &key, const YAML::Node &value) const {
    return value.IsDefined() && !value.IsNull() ? location(value) : location(key);
  }

  [[noreturn]] void error(const YAML::Node &node, const std::string &message) const {
    throw LocatedError(location(node), message);
  }

  void checkKeys(const YAML::Node &map, const std::vector<std::string> &allowed,
                 const std::string &context) const {
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      // A copy: yaml-cpp's map iterator returns its pair through a temporary proxy, so a
      // reference to it->first dangles once the statement ends (found by the manifest fuzzer).
      const YAML::Node key = it->first;
      if (!key.IsScalar())
        error(key, "keys in " + context + " must be plain names");
      const std::string &name = key.Scalar();
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
        error(key, "unknown key '" + name + "' in " + context + didYouMean(name, allowed));
      if (!seen.insert(name).second)
        error(key, "duplicate key '" + name + "' in " + context);
    }
  }

  std::string scalarText(const YAML::Node &node, const std::string &what) const {
    if (!node.IsScalar())
      error(node, "'" + what + "' must be a single value");
    return node.Scalar();
  }

  bool boolean(const YAML::Node &node, const std::string &what) const {
    if (node.IsScalar() && node.Tag() == "?") {
      PlainScalar scalar = manifest::typePlainScalar(node.Scalar());
      if (scalar.kind == PlainScalar::Kind::Bool)
        return std::get<bool>(scalar.value);
    }
    std::string shown = node.IsScalar() ? "'" + node.Scalar() + "'" : "a list or map";
    error(node, "'" + what + "' must be true or false, got " + shown);
  }

  void readConfig(const YAML::Node &config, CompileConfig &out) const {
    if (config.IsNull())
      return;
    if (!config.IsMap())
      error(config, "'config' must be a map of compile configuration fields");
    checkKeys(config, CompileConfig::fieldNames(), "config");
    for (auto it = config.begin(); it != config.end(); ++it) {
      const std::string field = it->first.Scalar();
      if (it->second.IsNull())
        throw LocatedError(location(it->first), "config field '" + field + "' has no value");
      out.set(field, boolean(it->second, field));
    }
  }

  uint64_t unsignedInt(const YAML::Node &node, const std::string &what) const {
    if (node.IsScalar() && node.Tag() == "?") {
      PlainScalar scalar = manifest::typePlainScalar(node.Scalar());
      if (scalar.kind == PlainScalar::Kind::Int && std::get<int64_t>(scalar.value) >= 0)
        return static_cast<uint64_t>(std::get<int64_t>(scalar.value));
    }
    std::string shown = node.IsScalar() ? "'" + node.Scalar() + "'" : "a list or map";
    error(node, "'" + what + "' must be a non-negative integer, got " + shown);
  }

  void readCalibration(const YAML::Node &block, CalibrationConfig &out) const {
    out.where = location(block);
    if (block.IsNull())
      return;
    if (!block.IsMap())
      error(block, "'calibration' must be a map with the keys source, path, batches, seed, dims, "
                   "memory_budget and offload_dir");
    checkKeys(block, {"source", "path", "batches", "seed", "dims", "memory_budget", "offload_dir"}, "calibration");
    if (YAML::Node n = block["source"])
      out.source = scalarText(n, "calibration.source");
    if (YAML::Node n = block["path"])
      out.path = scalarText(n, "calibration.path");
    if (YAML::Node n = block["batches"]) {
      out.batches = unsignedInt(n, "calibration.batches");
      if (*out.batches == 0 || *out.batches > kMaxCalibrationBatches)
        error(n, "'calibration.batches' must be between 1 and " + std::to_string(kMaxCalibrationBatches) + ", not " +
                     std::to_string(*out.batches));
    }
    if (YAML::Node n = block["seed"])
      out.seed = unsignedInt(n, "calibration.seed");
    if (YAML::Node n = block["memory_budget"]) {
      try {
        out.memory_budget = parseByteSize(scalarText(n, "calibration.memory_budget"));
      } catch (const LocatedError &) {
        throw;
      } catch (const Error &e) {
        error(n, e.what());
      }
    }
    if (YAML::Node n = block["offload_dir"])
      out.offload_dir = scalarText(n, "calibration.offload_dir");
    if (YAML::Node dims = block["dims"]) {
      if (!dims.IsMap())
        error(dims, "'calibration.dims' must be a map from symbol names to sizes, e.g. {s0: 128}");
      for (auto it = dims.begin(); it != dims.end(); ++it) {
        const YAML::Node key = it->first;
        if (!key.IsScalar() || key.Scalar().empty())
          error(key, "keys of 'calibration.dims' must be symbol names");
        const uint64_t size = unsignedInt(it->second, "calibration.dims." + key.Scalar());
        if (!out.dims.emplace(key.Scalar(), static_cast<int64_t>(size)).second)
          error(key, "duplicate symbol '" + key.Scalar() + "' in calibration.dims");
      }
    }
  }

  Stage readStage(const YAML::Node &node) const {
    if (!node.IsMap())
      error(node, "a stage must be a map with a 'name' and a list of 'passes'");
    Stage stage;
    if (YAML::Node kind = node["kind"]) {
      std::string text = scalarText(kind, "kind");
      auto parsed = manifest::parseKind(text);
      if (!parsed)
        error(kind, "unknown stage kind '" + text + "'; expected passes, quantize, lower or circle" +
                        didYouMean(text, manifest::kindTexts()));
      stage.kind = *parsed;
    }
    // A lower stage runs the serializer, not a pass list: it takes options only.
    if (stage.kind == StageKind::Lower)
      checkKeys(node, {"name", "kind", "options"}, "lower stage");
    else
      checkKeys(node, {"name", "kind", "strategy", "when", "passes"}, "stage");
    YAML::Node name = node["name"];
    if (!name || name.IsNull())
      error(node, "stage has no 'name'");
    stage.name = scalarText(name, "name");
    if (stage.name.empty())
      error(name, "stage name is empty");
    stage.where = location(name);

    if (YAML::Node options = node["options"])
      readOptions(options, "lower stage '" + stage.name + "'", stage.options, stage.option_locations);
    // A quantizer calibrates and converts once; re-running it to a fixed point would only
    // calibrate again on its own output.
    if (stage.kind == StageKind::Quantize)
      stage.strategy = PassStrategy::Once;
    if (YAML::Node strategy = node["strategy"]) {
      std::string text = scalarText(strategy, "strategy");
      auto parsed = manifest::parseStrategy(text);
      if (!parsed)
        error(strategy, "unknown strategy '" + text +
                            "'; expected restart, until_no_change or once" +
                            didYouMean(text, manifest::strategyTexts()));
      stage.strategy = *parsed;
    }
    if (YAML::Node when = node["when"]) {
      try {
        stage.when = manifest::parseCondition(scalarText(when, "when"));
      } catch (const LocatedError &) {
        throw;
      } catch (const Error &e) {
        error(when, e.what());
      }
    }
    if (YAML::Node passes = node["passes"]) {
      if (!passes.IsNull() && !passes.IsSequence())
        error(passes, "'passes' of stage '" + stage.name + "' must be a list");
      for (const auto &entry : passes)
        readPassEntry(entry, stage.passes);
    }
    return stage;
  }

  void readPassEntry(const YAML::Node &entry, std::vector<PassInvocation> &out) const {
    if (entry.IsScalar()) {
      // Offsets inside the text are columns only for plain scalars on one line.
      bool exact = entry.Tag() == "?" && entry.Scalar().find('\n') == std::string::npos;
      for (auto &invocation : manifest::parseCompactPasses(entry.Scalar(), location(entry), exact))
        out.push_back(std::move(invocation));
      return;
    }
    if (!entry.IsMap())
      error(entry, "a pass entry must be a name or a map with 'name', 'options' and 'enabled'");
    checkKeys(entry, {"name", "options", "enabled"}, "pass entry");
    YAML::Node name = entry["name"];
    if (!name || name.IsNull())
      error(entry, "pass entry has no 'name'");
    PassInvocation invocation;
    invocation.name = scalarText(name, "name");
    invocation.where = location(name);
    if (!manifest::isIdentifier(invocation.name))
      error(name, "invalid pass name '" + invocation.name +
                      "' (names use letters, digits, '-', '_' and '.'; options go under 'options')");
    if (YAML::Node options = entry["options"])
      readOptions(options, "pass '" + invocation.name + "'", invocation.options, invocation.option_locations);
    bool enabled = true;
    if (YAML::Node flag = entry["enabled"])
      enabled = boolean(flag, "enabled");
    if (enabled)
      out.push_back(std::move(invocation));
  }

  // `owner` names what the options belong to ("pass 'x'", "lower stage 'lower'").
  void readOptions(const YAML::Node &options, const std::string &owner, std::map<std::string, OptionValue> &values,
                   std::map<std::string, SourceLocation> &locations) const {
    if (options.IsNull())
      return;
    if (!options.IsMap())
      error(options, "'options' of " + owner + " must be a map");
    std::set<std::string> seen;
    for (auto it = options.begin(); it != options.end(); ++it) {
      // A copy: yaml-cpp's map iterator returns its pair through a temporary proxy, so a
      // reference to it->first dangles once the statement ends (found by the manifest fuzzer).
      const YAML::Node key = it->first;
      if (!key.IsScalar() || !manifest::isIdentifier(key.Scalar()))
        error(key, "invalid option name in " + owner);
      const std::string &name = key.Scalar();
      if (!seen.insert(name).second)
        error(key, "duplicate option '" + name + "' in " + owner);
      values.emplace(name, optionValue(key, it->second));
      locations.emplace(name, location(key, it->second));
    }
  }

  OptionValue optionValue(const YAML::Node &key, const YAML::Node &value) const {
    const std::string &name = key.Scalar();
    if (!value.IsDefined() || value.IsNull())
      throw LocatedError(location(key), "option '" + name + "' has no value");
    if (value.IsScalar()) {
      // A quoted scalar is always text, so "123" can be given to a string option.
      if (value.Tag() != "?")
        return value.Scalar();
      return manifest::typePlainScalar(value.Scalar()).value;
    }
    if (value.IsSequence()) {
      std::vector<manifest::ListElement> elements;
      for (const auto &element : value) {
        if (!element.IsScalar())
          error(element, "elements of option '" + name + "' must be single values");
        elements.push_back({element.Scalar(), element.Tag() != "?"});
      }
      return manifest::listValue(elements);
    }
    error(value, "option '" + name + "' must be a value or a list, not a map");
  }

  std::string file_;
};

} // namespace

Manifest Manifest::parse(const std::string &text, const std::string &file_name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception &e) {
    SourceLocation where{file_name, 0, 0};
    if (e.mark.line >= 0) {
      where.line = e.mark.line + 1;
      where.column = e.mark.column + 1;
    }
    throw LocatedError(where, "invalid YAML: " + e.msg);
  }
  manifest::checkExpandedSize(root, file_name); // before any other walk: aliases can explode
  manifest::checkQuotesClosed(root, text, file_name);
  return ManifestReader(file_name).read(root);
}

Manifest Manifest::load(const std::string &path) {
  // A FIFO, device or directory is refused before it is opened, and so is a file too large
  // to be a manifest (--pipeline /dev/zero would otherwise fill memory).
  Manifest manifest = parse(readRegularFile(path, "pipeline manifest"), path);
  manifest.path = path;
  // calibration.path is relative to the manifest's directory when it exists there ("random" or
  // "example-inputs" name no file and stay as written); done here, so every manifest that
  // carries the block into another (a --quant recipe, append) carries a usable path.
  std::string &data = manifest.calibration.path;
  if (!data.empty() && std::filesystem::path(data).is_relative()) {
    std::error_code ec;
    const auto beside = std::filesystem::path(path).parent_path() / data;
    if (std::filesystem::exists(beside, ec))
      data = beside.string();
  }
  return manifest;
}

} // namespace tico
