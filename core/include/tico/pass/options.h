// Typed options of passes, quantizers and Circle passes.
//
// Every option is declared with a name, type, default and help text. Values given in a
// pipeline manifest are checked against the declaration when the pipeline is built, so a
// misspelt key or a wrong type is an error before anything runs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace tico {

enum class OptionType : uint8_t { Bool, Int, Float, String, IntList, StringList };

using OptionValue =
    std::variant<bool, int64_t, double, std::string, std::vector<int64_t>, std::vector<std::string>>;

struct OptionSpec {
  std::string name;
  OptionType type = OptionType::Bool;
  OptionValue default_value = false;
  std::string help;
};

const char *optionTypeName(OptionType type);
std::string optionValueString(const OptionValue &value);

// Resolved option values: every declared option has a value (given or default).
class Options {
public:
  Options() = default;
  explicit Options(std::map<std::string, OptionValue> values) : values_(std::move(values)) {}

  bool getBool(const std::string &name) const;
  int64_t getInt(const std::string &name) const;
  double getFloat(const std::string &name) const;
  const std::string &getString(const std::string &name) const;
  const std::vector<int64_t> &getIntList(const std::string &name) const;
  const std::vector<std::string> &getStringList(const std::string &name) const;
  bool has(const std::string &name) const { return values_.count(name) != 0; }
  const std::map<std::string, OptionValue> &values() const { return values_; }

  // Fills defaults for missing options and rejects unknown names or wrongly typed values.
  // `owner` names the pass in error messages. Throws tico::Error.
  static Options resolve(const std::string &owner, const std::vector<OptionSpec> &specs,
                         const std::map<std::string, OptionValue> &given);

private:
  std::map<std::string, OptionValue> values_;
};

} // namespace tico
