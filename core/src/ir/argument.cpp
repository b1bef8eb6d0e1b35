#include "tico/ir/argument.h"

#include "tico/ir/value.h"
#include "tico/support/error.h"

namespace tico {
namespace {
[[noreturn]] void kindMismatch(Argument::Kind have, const char *want) {
  throw Error(std::string("argument is ") + Argument::kindName(have) + ", expected " + want);
}
} // namespace

const char *Argument::kindName(Kind kind) {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Value:
    return "a value";
  case Kind::ValueList:
    return "a tensor list";
  case Kind::OptionalValueList:
    return "an optional tensor list";
  case Kind::Int:
    return "an int";
  case Kind::IntList:
    return "an int list";
  case Kind::SymIntList:
    return "a symbolic int list";
  case Kind::Float:
    return "a float";
  case Kind::FloatList:
    return "a float list";
  case Kind::Bool:
    return "a bool";
  case Kind::BoolList:
    return "a bool list";
  case Kind::String:
    return "a string";
  case Kind::StringList:
    return "a string list";
  case Kind::ScalarType:
    return "a dtype";
  case Kind::Layout:
    return "a layout";
  case Kind::MemoryFormat:
    return "a memory format";
  case Kind::Device:
    return "a device";
  }
  return "?";
}

Argument Argument::symInts(std::vector<SymIntElem> v) {
  bool symbolic = false;
  for (const auto &e : v)
    symbolic |= e.sym != nullptr;
  if (!symbolic) {
    std::vector<int64_t> ints;
    ints.reserve(v.size());
    for (const auto &e : v)
      ints.push_back(e.value);
    return Argument::ints(std::move(ints));
  }
  return Argument(Kind::SymIntList, std::move(v));
}

Value *Argument::asValue() const {
  if (kind_ != Kind::Value)
    kindMismatch(kind_, "a value");
  return std::get<std::vector<Value *>>(data_)[0];
}

const std::vector<Value *> &Argument::asValues() const {
  if (kind_ != Kind::ValueList && kind_ != Kind::OptionalValueList)
    kindMismatch(kind_, "a tensor list");
  return std::get<std::vector<Value *>>(data_);
}

int64_t Argument::asInt() const {
  if (kind_ == Kind::Int)
    return std::get<int64_t>(data_);
  if (kind_ == Kind::Bool)
    return std::get<bool>(data_) ? 1 : 0;
  kindMismatch(kind_, "an int");
}

double Argument::asDouble() const {
  if (kind_ == Kind::Float)
    return std::get<double>(data_);
  if (kind_ == Kind::Int || kind_ == Kind::Bool)
    return static_cast<double>(asInt());
  kindMismatch(kind_, "a number");
}

bool Argument::asBool() const {
  if (kind_ == Kind::Bool)
    return std::get<bool>(data_);
  if (kind_ == Kind::Int)
    return std::get<int64_t>(data_) != 0;
  kindMismatch(kind_, "a bool");
}

const std::vector<int64_t> &Argument::asInts() const {
  if (kind_ != Kind::IntList)
    kindMismatch(kind_, "an int list");
  return std::get<std::vector<int64_t>>(data_);
}

const std::vector<SymIntElem> &Argument::asSymInts() const {
  if (kind_ != Kind::SymIntList)
    kindMismatch(kind_, "a symbolic int list");
  return std::get<std::vector<SymIntElem>>(data_);
}

const std::vector<double> &Argument::asDoubles() const {
  if (kind_ != Kind::FloatList)
    kindMismatch(kind_, "a float list");
  return std::get<std::vector<double>>(data_);
}

const std::vector<bool> &Argument::asBools() const {
  if (kind_ != Kind::BoolList)
    kindMismatch(kind_, "a bool list");
  return std::get<std::vector<bool>>(data_);
}

const std::string &Argument::asString() const {
  if (kind_ != Kind::String)
    kindMismatch(kind_, "a string");
  return std::get<std::string>(data_);
}

const std::vector<std::string> &Argument::asStrings() const {
  if (kind_ != Kind::StringList)
    kindMismatch(kind_, "a string list");
  return std::get<std::vector<std::string>>(data_);
}

DType Argument::asScalarType() const {
  if (kind_ != Kind::ScalarType)
    kindMismatch(kind_, "a dtype");
  return std::get<DType>(data_);
}

Layout Argument::asLayout() const {
  if (kind_ != Kind::Layout)
    kindMismatch(kind_, "a layout");
  return std::get<Layout>(data_);
}

MemoryFormat Argument::asMemoryFormat() const {
  if (kind_ != Kind::MemoryFormat)
    kindMismatch(kind_, "a memory format");
  return std::get<MemoryFormat>(data_);
}

const Device &Argument::asDevice() const {
  if (kind_ != Kind::Device)
    kindMismatch(kind_, "a device");
  return std::get<Device>(data_);
}

std::vector<Value *> Argument::referencedValues() const {
  std::vector<Value *> out;
  switch (kind_) {
  case Kind::Value:
  case Kind::ValueList:
  case Kind::OptionalValueList:
    for (Value *v : std::get<std::vector<Value *>>(data_))
      if (v != nullptr)
        out.push_back(v);
    break;
  case Kind::SymIntList:
    for (const auto &e : std::get<std::vector<SymIntElem>>(data_))
      if (e.sym != nullptr)
        out.push_back(e.sym);
    break;
  default:
    break;
  }
  return out;
}

} // namespace tico
