// Operator schemas (PyTorch FunctionSchema syntax) and the registry that holds them.
//
// The .pt2 format omits every argument left at its default, so the importer refills them
// from these schemas; passes and lowerings then see canonical nodes whose argument list
// matches the schema one to one. The core holds only the mechanism (parser, registry,
// defaults): the aten/prims table of the PyTorch release comes from the .pt2 frontend plugin
// (Registrar::addOpSchemaTable), and other plugins add schemas for their own ops.
#pragma once

#include "tico/ir/argument.h"
#include "tico/ir/op_key.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tico {

// Types of schema arguments, reduced to what the IR distinguishes.
enum class ArgType : uint8_t {
  Tensor,
  TensorList,         // Tensor[]
  OptionalTensorList, // Tensor?[]
  Int,                // int, SymInt
  IntList,            // int[], int[N], SymInt[]
  Float,
  FloatList,
  Bool,
  BoolList,
  Scalar, // int, float or bool
  ScalarList,
  String,
  StringList,
  ScalarType,
  Layout,
  Device,
  MemoryFormat,
  Generator,
  Other, // anything else (Dimname, Storage, ...): kept as text
};

struct SchemaArgument {
  std::string name;
  ArgType type = ArgType::Other;
  std::string type_text;           // as written in the schema, e.g. "SymInt[2]", "Tensor?"
  bool optional = false;           // T? : None is a valid value
  bool kwarg_only = false;         // after '*'
  bool is_symbolic = false;        // SymInt / SymInt[]
  int fixed_length = 0;            // N of int[N] (a single int broadcasts to N elements)
  std::optional<std::string> default_text; // default value as written, e.g. "1", "[0, 0]", "None"
  bool is_mutable = false;         // Tensor(a!)
  std::string alias_set;           // "a" for Tensor(a) / Tensor(a!); empty without annotation

  bool hasDefault() const { return default_text.has_value(); }
  // The default as an argument value (a single int for int[N] is broadcast to N elements).
  // Throws tico::Error when there is no default or it cannot be represented.
  Argument defaultValue() const;
  // True when `value` has a kind this argument accepts (None only when optional). A Tensor
  // argument also accepts a number: torch.export records `x + 2.5` as add.Tensor(x, 2.5).
  bool accepts(const Argument &value) const;
};

struct SchemaReturn {
  std::string name;
  ArgType type = ArgType::Tensor;
  std::string type_text;
  bool is_mutable = false; // Tensor(a!): the op writes into an argument and returns it
  std::string alias_set;   // the argument this return aliases, by annotation ("a"); empty: fresh
};

struct OpSchema {
  OpKey key;
  std::vector<SchemaArgument> arguments;
  std::vector<SchemaReturn> returns;

  // Parses one PyTorch schema string, e.g.
  //   "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
  // Throws tico::Error on malformed text.
  static OpSchema parse(std::string_view text);
  std::string str() const;

  // Index of the argument called `name`, or -1.
  int argumentIndex(std::string_view name) const;

  // Indices of the arguments the op writes into (annotated `(a!)`), in order.
  std::vector<std::size_t> mutatedArguments() const;
  // A view op: writes nothing, and its first return aliases its first argument (`Tensor(a)
  // self -> Tensor(a)`), so writes through the result reach the input.
  bool isView() const;
};

class OpSchemaRegistry {
public:
  // A registry that stays empty: what a Graph uses until it is given the registry of the
  // loaded plugins (ops then keep the arguments as written).
  static const OpSchemaRegistry &empty();

  void add(OpSchema schema); // replaces an existing schema with the same key
  // Shares an already parsed schema (registries built from one table share their entries).
  void add(std::shared_ptr<const OpSchema> schema);
  // Parses every text and adds the ones that parse; returns how many were skipped. Used for
  // whole tables taken from PyTorch, where a schema in syntax the IR does not model only makes
  // that op "without schema" rather than failing the table.
  std::size_t addParsable(const std::string_view *texts, std::size_t count);
  const OpSchema *find(const OpKey &key) const;
  std::shared_ptr<const OpSchema> findShared(const OpKey &key) const;
  std::size_t size() const { return schemas_.size(); }
  // Every key, in OpKey order.
  std::vector<OpKey> keys() const;

  // Overload names known for ns::name (for "did you mean" hints).
  std::vector<std::string> overloadsOf(const std::string &ns, const std::string &name) const;

private:
  std::map<OpKey, std::shared_ptr<const OpSchema>> schemas_;
};

} // namespace tico
