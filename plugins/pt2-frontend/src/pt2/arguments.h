// Node arguments: the JSON Argument union -> tico::Argument.
#pragma once

#include "pt2/json_schema.h"

#include "tico/ir/argument.h"

#include <string>
#include <unordered_map>

namespace tico::pt2 {

// Values defined so far, by the name the exported program gives them. Programs list nodes in
// definition order, so a name missing here is a forward or dangling reference.
using ValueMap = std::unordered_map<std::string, Value *>;

class ArgumentReader {
public:
  explicit ArgumentReader(const ValueMap &values) : values_(values) {}

  // Converts one Argument union. `context` names the node and argument for messages.
  Argument read(const Json &arg, const std::string &context) const;

  // The value called `name`; throws when none is defined (yet).
  Value *value(const std::string &name, const std::string &context) const;
  // A TensorArgument object {"name": ...}.
  Value *tensor(const Json &tensor_argument, const std::string &context) const;

private:
  Argument symInt(const Json &arg, const std::string &context) const;
  Argument symInts(const Json &list, const std::string &context) const;
  Argument symScalar(const Json &arg, const char *constant_variant, const std::string &context) const;
  Argument optionalTensors(const Json &list, const std::string &context) const;

  const ValueMap &values_;
};

} // namespace tico::pt2
