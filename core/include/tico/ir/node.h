// Operator applications.
#pragma once

#include "tico/ir/argument.h"
#include "tico/ir/op_key.h"
#include "tico/ir/op_ref.h"
#include "tico/ir/op_schema.h"
#include "tico/ir/value.h"

#include <list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tico {

struct NamedArg {
  std::string name;
  Argument value;
};

class Node {
public:
  const OpKey &op() const { return op_; }
  // The interned identity of op(): compare it with the constants of tico/ops/torch_ops.h
  // (`node.opId() == ops::aten::relu_default`) instead of comparing key strings.
  OpId opId() const { return op_id_; }
  const std::string &name() const { return name_; }
  // Schema the arguments follow (null for ops without a known schema).
  const OpSchema *schema() const { return schema_; }
  Graph *graph() const { return graph_; }

  // Arguments in schema order, every one present (defaults are filled when the node is
  // created). Ops without a schema keep the arguments as given.
  const std::vector<NamedArg> &args() const { return args_; }
  std::size_t numArgs() const { return args_.size(); }
  const Argument &arg(std::size_t index) const;
  const Argument &arg(std::string_view name) const; // throws tico::Error when absent
  const Argument *findArg(std::string_view name) const;
  // Shorthand for arg(i).asValue() / arg(name).asValue().
  Value *input(std::size_t index) const { return arg(index).asValue(); }
  Value *input(std::string_view name) const { return arg(name).asValue(); }

  // Replacing an argument keeps the user lists of the Values involved correct.
  void setArg(std::size_t index, Argument value);
  void setArg(std::string_view name, Argument value);
  // Replaces every reference to `from` in this node's arguments with `to`.
  void replaceInput(Value *from, Value *to);

  const std::vector<Value *> &outputs() const { return outputs_; }
  Value *output(std::size_t index = 0) const { return outputs_.at(index); }
  std::size_t numOutputs() const { return outputs_.size(); }

  // Free-form metadata from the exporter ("stack_trace", "nn_module_stack", ...).
  std::map<std::string, std::string> &meta() { return meta_; }
  const std::map<std::string, std::string> &meta() const { return meta_; }

  // Where in the source this node came from, for diagnostics: the last line of the stack
  // trace when the exporter recorded one, else "".
  std::string sourceHint() const;

private:
  friend class Graph;
  Node() = default;
  void attachArgs();
  void detachArgs();

  Graph *graph_ = nullptr;
  OpKey op_;
  OpId op_id_;
  std::string name_;
  const OpSchema *schema_ = nullptr;
  std::vector<NamedArg> args_;
  std::vector<Value *> outputs_;
  std::map<std::string, std::string> meta_;
  std::list<std::unique_ptr<Node>>::iterator self_;
};

} // namespace tico
