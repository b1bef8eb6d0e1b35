// The frontend ABI: readers that turn a model file into the graph IR.
#pragma once

#include "tico/ir/graph.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tico {

class Frontend {
public:
  virtual ~Frontend() = default;
  // Loads `path`. Errors (unreadable, malformed, unsupported content) are tico::Error whose
  // message names the file and the problem.
  virtual std::unique_ptr<Graph> load(const std::string &path, const OpSchemaRegistry &schemas) = 0;
};

struct FrontendSpec {
  std::string name; // "pt2"
  std::string summary;
  std::vector<std::string> extensions; // ".pt2"
  // True when the file looks like this frontend's format (checked on the first bytes).
  std::function<bool(const std::string &path)> sniff;
  std::function<std::unique_ptr<Frontend>()> create;
};

} // namespace tico
