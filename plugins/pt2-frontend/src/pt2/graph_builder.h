// Builds the tico graph from an exported program's JSON (models/<name>.json) and its payloads.
#pragma once

#include "pt2/archive.h"
#include "pt2/arguments.h"
#include "pt2/json_schema.h"
#include "pt2/payload.h"
#include "pt2/value_types.h"

#include "tico/ir/graph.h"

#include <memory>
#include <optional>
#include <vector>

namespace tico::pt2 {

class GraphBuilder {
public:
  GraphBuilder(const Archive &archive, const Json &program, const OpSchemaRegistry &schemas);

  // Throws tico::Error (without the file name; the frontend adds it).
  std::unique_ptr<Graph> build();

private:
  void checkSchemaVersion();
  void readRangeConstraints();
  void readInputs(const Json &input_specs);
  void readInput(const std::string &kind, const Json &spec, std::size_t index);
  Value *addConstantData(InputKind kind, const Json &spec, const char *fqn_field, const std::string &context);
  void readNodes(const Json &nodes);
  void readNode(const Json &node, std::size_t index);
  // torch.ops.higher_order.wrap_with_autocast with enabled=False: its subgraph's nodes, inlined.
  void inlineAutocastRegion(const Json &node, const std::string &name, const std::string &context);
  void readOutputs(const Json &output_specs);
  void define(Value *value, const std::string &json_name, const std::string &context);

  const Archive &archive_;
  const Json &program_;
  const OpSchemaRegistry &schemas_;
  const Json *graph_json_ = nullptr;
  std::unique_ptr<Graph> graph_;
  std::optional<ValueTypes> types_;
  // The tensor types of the subgraphs being inlined (innermost last); nodes read theirs.
  std::vector<std::unique_ptr<ValueTypes>> scoped_types_;
  const ValueTypes &nodeTypes() const { return scoped_types_.empty() ? *types_ : *scoped_types_.back(); }
  ValueMap values_;
  ArgumentReader arguments_{values_};
  std::optional<PayloadStore> weights_;
  std::optional<PayloadStore> constants_;
  // While a subgraph is inlined: the prefix of its nodes' and values' names in the graph (its
  // JSON names live in their own scope and may repeat the outer graph's).
  std::string inline_prefix_;
};

} // namespace tico::pt2
