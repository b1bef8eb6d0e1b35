// Canonical YAML for a manifest: every key spelled out (defaults included; config fields only
// when set), option keys in sorted order, strings always quoted. Parsing the output yields an equal manifest, which is
// what lets `--print-pipeline` output serve as a reproducer.
#include "tico/pipeline/manifest.h"

#include "pipeline/manifest_syntax.h"

#include <yaml-cpp/yaml.h>

namespace tico {

namespace {

void emitValue(YAML::Emitter &out, const OptionValue &value) {
  if (const auto *text = std::get_if<std::string>(&value)) {
    // Quoted, so text such as "true" or "12" reads back as a string.
    out << YAML::DoubleQuoted << *text;
  } else if (const auto *ints = std::get_if<std::vector<int64_t>>(&value)) {
    out << YAML::Flow << YAML::BeginSeq;
    for (int64_t element : *ints)
      out << element;
    out << YAML::EndSeq;
  } else if (const auto *strings = std::get_if<std::vector<std::string>>(&value)) {
    out << YAML::Flow << YAML::BeginSeq;
    for (const auto &element : *strings)
      out << YAML::DoubleQuoted << element;
    out << YAML::EndSeq;
  } else {
    // bool, int and float: their canonical text is a plain YAML scalar of the same type.
    out << optionValueString(value);
  }
}

// Names are read as raw text, except that a plain `null` or `~` would read as "no value".
void emitName(YAML::Emitter &out, const std::string &name) {
  if (manifest::typePlainScalar(name).kind == manifest::PlainScalar::Kind::Null)
    out << YAML::DoubleQuoted;
  out << name;
}

void emitOptions(YAML::Emitter &out, const std::map<std::string, OptionValue> &options) {
  if (options.empty())
    out << YAML::Flow;
  out << YAML::BeginMap;
  for (const auto &[key, value] : options) { // std::map: sorted keys
    out << YAML::Key << key << YAML::Value;
    emitValue(out, value);
  }
  out << YAML::EndMap;
}

void emitPass(YAML::Emitter &out, const PassInvocation &pass) {
  if (pass.options.empty()) {
    emitName(out, pass.name);
    return;
  }
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value;
  emitName(out, pass.name);
  out << YAML::Key << "options" << YAML::Value;
  emitOptions(out, pass.options);
  out << YAML::EndMap;
}

// A lower stage has a name, its kind and its options; nothing else applies to it.
void emitLowerStage(YAML::Emitter &out, const Stage &stage) {
  out << YAML::Key << "options" << YAML::Value;
  emitOptions(out, stage.options);
}

} // namespace

std::string Manifest::print() const {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "schema" << YAML::Value << manifest::kSchemaVersion;
  // Only the fields that were set: the others are no alias for anything.
  if (!config.empty()) {
    out << YAML::Key << "config" << YAML::Value << YAML::BeginMap;
    for (const auto &field : CompileConfig::fieldNames())
      if (std::optional<bool> value = config.find(field))
        out << YAML::Key << field << YAML::Value << (*value ? "true" : "false");
    out << YAML::EndMap;
  }
  if (!calibration.empty()) {
    const CalibrationConfig &c = calibration;
    out << YAML::Key << "calibration" << YAML::Value << YAML::BeginMap;
    if (!c.source.empty())
      out << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted << c.source;
    if (!c.path.empty())
      out << YAML::Key << "path" << YAML::Value << YAML::DoubleQuoted << c.path;
    if (c.batches)
      out << YAML::Key << "batches" << YAML::Value << *c.batches;
    if (c.seed)
      out << YAML::Key << "seed" << YAML::Value << *c.seed;
    if (!c.dims.empty()) {
      out << YAML::Key << "dims" << YAML::Value << YAML::BeginMap;
      for (const auto &[symbol, size] : c.dims)
        out << YAML::Key << symbol << YAML::Value << size;
      out << YAML::EndMap;
    }
    if (c.memory_budget)
      out << YAML::Key << "memory_budget" << YAML::Value << YAML::DoubleQuoted << byteSizeText(*c.memory_budget);
    if (!c.offload_dir.empty())
      out << YAML::Key << "offload_dir" << YAML::Value << YAML::DoubleQuoted << c.offload_dir;
    out << YAML::EndMap;
  }
  out << YAML::Key << "verify_each" << YAML::Value << (verify_each ? "true" : "false");
  out << YAML::Key << "stages" << YAML::Value;
  if (stages.empty())
    out << YAML::Flow;
  out << YAML::BeginSeq;
  for (const auto &stage : stages) {
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value;
    emitName(out, stage.name);
    out << YAML::Key << "kind" << YAML::Value << manifest::kindText(stage.kind);
    if (stage.kind == StageKind::Lower) {
      emitLowerStage(out, stage);
      out << YAML::EndMap;
      continue;
    }
    out << YAML::Key << "strategy" << YAML::Value << manifest::strategyText(stage.strategy);
    out << YAML::Key << "when" << YAML::Value << stage.when.str();
    out << YAML::Key << "passes" << YAML::Value;
    if (stage.passes.empty()) {
      out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
    } else {
      out << YAML::BeginSeq;
      for (const auto &pass : stage.passes)
        emitPass(out, pass);
      out << YAML::EndSeq;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

} // namespace tico
