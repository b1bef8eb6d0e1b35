// Types of graph values as the exported program records them: graph.tensor_values (dtype
// and sizes of every tensor) and graph.sym_{int,float,bool}_values (symbolic scalars).
#pragma once

#include "pt2/json_schema.h"

#include "tico/ir/graph.h"

#include <map>
#include <string>

namespace tico::pt2 {

class ValueTypes {
public:
  // `graph` is the program's graph_module.graph object; `symbols` the range constraints
  // (used for the hint of a symbol the exporter recorded none for).
  ValueTypes(const Json &graph, const std::map<std::string, SymbolRange> &symbols);

  bool isTensor(const std::string &name) const { return tensors_ && tensors_->contains(name); }

  // Tensor type of `name`; throws when tensor_values does not describe it.
  TensorTypeSpec tensor(const std::string &name, const std::string &context) const;

  // A symbolic scalar value: its type plus the expression and hint to give the Value.
  struct Scalar {
    TensorTypeSpec type;
    std::string expr; // infix text; a plain number when the exporter specialised it
    int64_t hint = 0;
  };
  Scalar scalar(const std::string &name, ValueKind kind, const std::string &context) const;

  // One dimension (a SymInt JSON object) and a list of them.
  Dim dim(const Json &sym_int, const std::string &context) const;
  Shape shape(const Json &sizes, const std::string &context) const;

private:
  const Json *tensors_ = nullptr;
  const Json *sym_ints_ = nullptr;
  const Json *sym_floats_ = nullptr;
  const Json *sym_bools_ = nullptr;
  const std::map<std::string, SymbolRange> &symbols_;
};

} // namespace tico::pt2
