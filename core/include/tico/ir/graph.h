// The graph IR: an ATen-level program with its export signature.
#pragma once

#include "tico/ir/node.h"
#include "tico/ir/op_schema.h"

#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tico {

// Kinds of graph inputs, as in torch.export's graph signature.
enum class InputKind : uint8_t {
  User,          // a runtime input of the model
  Parameter,     // nn.Parameter (constant data attached)
  Buffer,        // registered buffer (constant data attached)
  Constant,      // lifted tensor constant (constant data attached)
  ConstantInput, // a non-tensor user input specialised to a constant at export time
  Token,
  CustomObject,
};

struct GraphInput {
  InputKind kind = InputKind::User;
  Value *value = nullptr;       // null for ConstantInput
  std::string target;           // fully-qualified name of the parameter/buffer/constant
  bool persistent = true;       // buffers only
  std::string name;             // ConstantInput: the user-facing argument name
  Argument constant_value;      // ConstantInput: the value it was specialised to
};

enum class OutputKind : uint8_t {
  User,
  BufferMutation,
  UserInputMutation,
  ParameterMutation,
  Loss,
  Token,
};

struct GraphOutput {
  OutputKind kind = OutputKind::User;
  Argument value;     // usually a Value; None or a number for constant user outputs
  std::string target; // mutated buffer/parameter/user-input name
};

struct TensorTypeSpec {
  ValueKind kind = ValueKind::Tensor;
  DType dtype = DType::Unknown;
  Shape shape;
  std::string name; // value name; empty: derived from the node name
  std::shared_ptr<const QuantParams> quant; // quantization parameters of the output, or null
};

class Graph {
public:
  Graph();
  // A graph whose new nodes follow `schemas` (which must outlive the graph).
  explicit Graph(const OpSchemaRegistry *schemas);
  ~Graph();
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  std::string name = "main";

  // Schemas used to fill defaults and order arguments of new nodes. Defaults to an empty
  // registry (the core bundles no op table); hosts point it at Registry::schemas(), which the
  // .pt2 frontend plugin fills with the PyTorch table.
  const OpSchemaRegistry *schemas() const { return schemas_; }
  void setSchemas(const OpSchemaRegistry *schemas) { schemas_ = schemas; }

  // ---- inputs, outputs, constants -----------------------------------------------------
  const std::vector<GraphInput> &inputs() const { return inputs_; }
  Value *addInput(InputKind kind, const std::string &name, DType dtype, Shape shape,
                  std::string target = {}, std::shared_ptr<const TensorData> data = nullptr,
                  bool persistent = true);
  Value *addSymInput(const std::string &name, ValueKind kind, std::string expr, int64_t hint);
  void addConstantInput(std::string name, Argument value);
  // User inputs only, in signature order.
  std::vector<Value *> userInputs() const;

  const std::vector<GraphOutput> &outputs() const { return outputs_; }
  void addOutput(GraphOutput output);
  void setOutputValue(std::size_t index, Argument value);
  // Turns a mutation output into a user output (or back); the value stays.
  void setOutputKind(std::size_t index, OutputKind kind);
  // Removes an output; what only it read becomes dead code.
  void eraseOutput(std::size_t index);
  // Values referenced by user outputs, in order (skipping None/constant outputs).
  std::vector<Value *> userOutputs() const;
  bool isGraphOutput(const Value *value) const;

  // Constants created by passes (not part of the signature), in creation order.
  const std::vector<Value *> &constants() const { return constants_; }
  Value *addConstant(const std::string &name_hint, std::shared_ptr<const TensorData> data);

  // Value ranges of export-time symbols.
  std::map<std::string, SymbolRange> &symbols() { return symbols_; }
  const std::map<std::string, SymbolRange> &symbols() const { return symbols_; }

  // ---- nodes -------------------------------------------------------------------------
  const std::list<std::unique_ptr<Node>> &nodes() const { return nodes_; }
  std::size_t numNodes() const { return nodes_.size(); }

  // Creates a node before `before` (null: at the end). Arguments may be given positionally
  // or by name; when the op has a schema they are matched to it, checked, and every omitted
  // argument is filled with its default. Throws tico::Error on mismatch.
  Node *createNode(const OpKey &op, std::vector<NamedArg> args, std::vector<TensorTypeSpec> outputs,
                   Node *before = nullptr, const std::string &name_hint = {});
  // Convenience: positional arguments, one tensor output.
  Node *createNode(const OpKey &op, std::vector<Argument> args, DType dtype, Shape shape,
                   Node *before = nullptr, const std::string &name_hint = {});

  // Removes a node whose outputs have no users (throws tico::Error otherwise).
  void eraseNode(Node *node);
  // Makes every user of `from` (nodes and graph outputs) use `to` instead.
  void replaceAllUsesWith(Value *from, Value *to);
  // Erases nodes whose outputs are unused and that are not graph outputs; returns how many.
  std::size_t removeDeadNodes();
  // Drops free constants nobody uses; returns how many.
  std::size_t removeUnusedConstants();

  Value *findValue(const std::string &name) const;
  Node *findNode(const std::string &name) const;
  std::string uniqueName(const std::string &hint) const;

  // Checks structural invariants (definitions before uses, user lists, signature bindings,
  // unique names, argument/schema agreement). Throws tico::Error with every problem found.
  void verify() const;

  std::unique_ptr<Graph> clone() const;

  // Count of nodes per op key, sorted by key (for listings and error messages).
  std::map<OpKey, std::size_t> opCounts() const;

private:
  Value *newValue(const std::string &name_hint, ValueKind kind, DType dtype, Shape shape);
  std::string uniqueNodeName(const std::string &hint) const;
  void killValue(Value *value);

  const OpSchemaRegistry *schemas_;
  std::deque<std::unique_ptr<Value>> values_;
  std::unordered_map<std::string, Value *> by_name_;
  std::unordered_map<std::string, Node *> nodes_by_name_;
  // Last numeric suffix handed out per name hint (see uniqueName).
  mutable std::unordered_map<std::string, std::size_t> next_value_suffix_;
  mutable std::unordered_map<std::string, std::size_t> next_node_suffix_;
  std::list<std::unique_ptr<Node>> nodes_;
  std::vector<GraphInput> inputs_;
  std::vector<GraphOutput> outputs_;
  std::vector<Value *> constants_;
  std::map<std::string, SymbolRange> symbols_;
};

} // namespace tico
