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
struct CompileConfig;

// What a pass can reach while it runs.
class PassContext {
public:
  PassContext(const Registry &registry, const CompileConfig &config)
      : registry_(registry), config_(config) {}
  const Registry &registry() const { return registry_; }
  const CompileConfig &config() const { return config_; }

private:
  const Registry &registry_;
  const CompileConfig &config_;
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
