// Typed node arguments.
#pragma once

#include "tico/ir/dtype.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace tico {

class Value;

// An element of a SymInt[] list: a constant or a symbolic integer value.
struct SymIntElem {
  int64_t value = 0;
  Value *sym = nullptr; // non-null: symbolic; `value` then holds nothing meaningful
  bool operator==(const SymIntElem &) const = default;
};

// torch.layout / torch.memory_format, numbered as PyTorch's export schema numbers them.
enum class Layout : uint8_t { Unknown = 0, SparseCoo = 1, SparseCsr = 2, SparseCsc = 3, SparseBsr = 4, SparseBsc = 5, Mkldnn = 6, Strided = 7 };
enum class MemoryFormat : uint8_t { Unknown = 0, Contiguous = 1, ChannelsLast = 2, ChannelsLast3d = 3, Preserve = 4 };

struct Device {
  std::string type = "cpu";
  int index = -1;
  bool operator==(const Device &) const = default;
};

// One argument value. Tensor-valued alternatives refer to graph Values; the owning Node keeps
// the Values' user lists in sync, so arguments are only changed through Node::setArg.
class Argument {
public:
  enum class Kind : uint8_t {
    None,
    Value,              // a tensor or a symbolic scalar (SymInt/SymFloat/SymBool)
    ValueList,          // Tensor[]
    OptionalValueList,  // Tensor?[] (null entries are None)
    Int,
    IntList,
    SymIntList,         // SymInt[] holding at least one symbolic element
    Float,
    FloatList,
    Bool,
    BoolList,
    String,
    StringList,
    ScalarType,
    Layout,
    MemoryFormat,
    Device,
  };

  Argument() = default; // None
  static Argument none() { return {}; }
  static Argument value(Value *v) { return Argument(Kind::Value, std::vector<Value *>{v}); }
  static Argument values(std::vector<Value *> vs) { return Argument(Kind::ValueList, std::move(vs)); }
  static Argument optionalValues(std::vector<Value *> vs) {
    return Argument(Kind::OptionalValueList, std::move(vs));
  }
  static Argument integer(int64_t v) { return Argument(Kind::Int, v); }
  static Argument ints(std::vector<int64_t> v) { return Argument(Kind::IntList, std::move(v)); }
  // Collapses to an IntList when no element is symbolic.
  static Argument symInts(std::vector<SymIntElem> v);
  static Argument real(double v) { return Argument(Kind::Float, v); }
  static Argument reals(std::vector<double> v) { return Argument(Kind::FloatList, std::move(v)); }
  static Argument boolean(bool v) { return Argument(Kind::Bool, v); }
  static Argument bools(std::vector<bool> v) { return Argument(Kind::BoolList, std::move(v)); }
  static Argument string(std::string v) { return Argument(Kind::String, std::move(v)); }
  static Argument strings(std::vector<std::string> v) { return Argument(Kind::StringList, std::move(v)); }
  static Argument scalarType(DType v) { return Argument(Kind::ScalarType, v); }
  static Argument layout(Layout v) { return Argument(Kind::Layout, v); }
  static Argument memoryFormat(MemoryFormat v) { return Argument(Kind::MemoryFormat, v); }
  static Argument device(Device v) { return Argument(Kind::Device, std::move(v)); }

  Kind kind() const { return kind_; }
  bool isNone() const { return kind_ == Kind::None; }
  bool isValue() const { return kind_ == Kind::Value; }
  bool isInt() const { return kind_ == Kind::Int; }
  bool isFloat() const { return kind_ == Kind::Float; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isIntList() const { return kind_ == Kind::IntList; }
  bool isNumber() const { return isInt() || isFloat() || isBool(); }

  // Typed accessors; each throws tico::Error when the kind does not match.
  Value *asValue() const;
  const std::vector<Value *> &asValues() const; // ValueList and OptionalValueList
  int64_t asInt() const;                        // Int (and Bool as 0/1)
  double asDouble() const;                      // Float, Int or Bool
  bool asBool() const;
  const std::vector<int64_t> &asInts() const;
  const std::vector<SymIntElem> &asSymInts() const;
  const std::vector<double> &asDoubles() const;
  const std::vector<bool> &asBools() const;
  const std::string &asString() const;
  const std::vector<std::string> &asStrings() const;
  DType asScalarType() const;
  Layout asLayout() const;
  MemoryFormat asMemoryFormat() const;
  const Device &asDevice() const;

  // Every Value this argument references (tensors and symbolic scalars), in order.
  std::vector<Value *> referencedValues() const;

  bool operator==(const Argument &other) const { return kind_ == other.kind_ && data_ == other.data_; }

  static const char *kindName(Kind kind);

private:
  using Data = std::variant<std::monostate, std::vector<Value *>, int64_t, std::vector<int64_t>,
                            std::vector<SymIntElem>, double, std::vector<double>, bool,
                            std::vector<bool>, std::string, std::vector<std::string>, DType,
                            Layout, MemoryFormat, Device>;
  template <typename T> Argument(Kind kind, T data) : kind_(kind), data_(std::move(data)) {}
  friend class Node;
  Kind kind_ = Kind::None;
  Data data_;
};

} // namespace tico
