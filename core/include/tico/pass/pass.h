// The pass ABI: graph-to-graph rewrites over the ATen-level IR.
#pragma once

#include "tico/ir/graph.h"
#include "tico/pass/options.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tico {

class Registry;

// What a pass can reach while it runs. Switches a pass needs are its own options (declared in
// its PassSpec), never a global configuration.
class PassContext {
public:
  explicit PassContext(const Registry &registry) : registry_(registry) {}
  const Registry &registry() const { return registry_; }

private:
  const Registry &registry_;
};

class Pass {
public:
  virtual ~Pass() = default;
  // Rewrites `graph` in place. Returns true exactly when the graph changed: the pass
  // manager's fixed-point strategies depend on it.
  virtual bool run(Graph &graph, PassContext &context) = 0;
};

struct PassSpec {
  std::string name;    // kebab-case registry name, e.g. "remove-nop"; vendors use "acme.x"
  std::string summary; // one line for --list-passes
  std::vector<OptionSpec> options;
  std::function<std::unique_ptr<Pass>(const Options &)> create;
};

} // namespace tico
