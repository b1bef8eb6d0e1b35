// The frontend ABI: readers that turn a model file (or its image in memory) into the graph IR.
#pragma once

#include "tico/ir/graph.h"
#include "tico/ir/tensor_data.h"
#include "tico/support/error.h"

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
  // Loads a model whose file image is already in memory (e.g. an archive a Python caller
  // serialised into a buffer), without writing it to disk. `name` stands for the file in
  // messages. Constants may be views of `image`: the graph keeps it alive, so the caller's
  // buffer is neither copied nor freed while the graph lives. Frontends that only read files
  // keep this default, which throws tico::Error.
  virtual std::unique_ptr<Graph> loadBytes(std::shared_ptr<const Storage> image, const std::string &name,
                                           const OpSchemaRegistry &schemas) {
    (void)image;
    (void)schemas;
    throw Error(name + ": this frontend reads models only from files, not from memory");
  }
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
