// The manifest's `config:` block: the original converter's CompileConfigV1 field names, kept as
// aliases. No pass reads a configuration; each field stands for options of the passes (or of
// the lower stage) that implement it, and Manifest::resolved() writes the field's value into
// those options wherever the manifest does not set them itself (explicit options win).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tico {

// Where one config field lands: option `option` of every entry of pass `pass` in an ATen-level
// stage (in a Circle stage when `circle_pass`), or, when `pass` is empty, option `option` of the
// lower stage.
struct ConfigAliasTarget {
  std::string pass;
  std::string option;
  bool circle_pass = false;
};

struct ConfigAlias {
  std::string field;
  bool default_value; // the original's default, equal to the default of the options it sets
  std::vector<ConfigAliasTarget> targets;
};

// Every field, in the order of the original's CompileConfigV1, then tico's own (docs/pipeline.md
// has the table).
const std::vector<ConfigAlias> &configAliases();

// The fields a manifest (or a caller: pt2-to-circle's -c file, the Python config= dict) sets.
// Fields that are not set leave the options to their declared defaults.
class CompileConfig {
public:
  // Names of the fields, for validation and "did you mean" hints.
  static const std::vector<std::string> &fieldNames();

  // Sets a field by name; returns false when the name is unknown.
  bool set(const std::string &field, bool value);
  // The value a field was set to, or nothing. Throws tico::Error for an unknown name.
  std::optional<bool> find(const std::string &field) const;
  // The value set, else the field's default. Throws tico::Error for an unknown name.
  bool get(const std::string &field) const;
  // Sets every field `other` sets (its values win).
  void merge(const CompileConfig &other);
  bool empty() const { return values_.empty(); }

  bool operator==(const CompileConfig &other) const = default;

private:
  std::map<std::string, bool> values_;
};

} // namespace tico
