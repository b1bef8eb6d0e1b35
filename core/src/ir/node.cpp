#include "tico/ir/node.h"

#include "tico/ir/graph.h"
#include "tico/support/error.h"

#include <algorithm>

namespace tico {

const Argument &Node::arg(std::size_t index) const {
  if (index >= args_.size())
    throw Error("node '" + name_ + "' (" + op_.str() + ") has " + std::to_string(args_.size()) +
                " arguments; argument " + std::to_string(index) + " requested");
  return args_[index].value;
}

const Argument *Node::findArg(std::string_view name) const {
  for (const auto &a : args_)
    if (a.name == name)
      return &a.value;
  return nullptr;
}

const Argument &Node::arg(std::string_view name) const {
  if (const Argument *a = findArg(name))
    return *a;
  throw Error("node '" + name_ + "' (" + op_.str() + ") has no argument '" + std::string(name) + "'");
}

void Node::detachArgs() {
  for (const auto &a : args_)
    for (Value *v : a.value.referencedValues()) {
      auto it = std::find(v->users_.begin(), v->users_.end(), this);
      if (it != v->users_.end())
        v->users_.erase(it);
    }
}

void Node::attachArgs() {
  for (const auto &a : args_)
    for (Value *v : a.value.referencedValues())
      v->users_.push_back(this);
}

void Node::setArg(std::size_t index, Argument value) {
  if (index >= args_.size())
    throw Error("node '" + name_ + "': no argument " + std::to_string(index));
  if (schema_ != nullptr && index < schema_->arguments.size() &&
      !schema_->arguments[index].accepts(value))
    throw Error("node '" + name_ + "' (" + op_.str() + "): argument '" + args_[index].name +
                "' (" + schema_->arguments[index].type_text + ") cannot be " +
                Argument::kindName(value.kind()));
  for (Value *v : args_[index].value.referencedValues()) {
    auto it = std::find(v->users_.begin(), v->users_.end(), this);
    if (it != v->users_.end())
      v->users_.erase(it);
  }
  args_[index].value = std::move(value);
  for (Value *v : args_[index].value.referencedValues())
    v->users_.push_back(this);
}

void Node::setArg(std::string_view name, Argument value) {
  for (std::size_t i = 0; i < args_.size(); ++i)
    if (args_[i].name == name)
      return setArg(i, std::move(value));
  throw Error("node '" + name_ + "' (" + op_.str() + ") has no argument '" + std::string(name) + "'");
}

void Node::replaceInput(Value *from, Value *to) {
  for (auto &a : args_) {
    bool touched = false;
    auto &data = a.value.data_;
    if (auto *vs = std::get_if<std::vector<Value *>>(&data)) {
      for (Value *&v : *vs)
        if (v == from) {
          v = to;
          touched = true;
        }
    } else if (auto *ss = std::get_if<std::vector<SymIntElem>>(&data)) {
      for (auto &e : *ss)
        if (e.sym == from) {
          e.sym = to;
          touched = true;
        }
    }
    (void)touched;
  }
  // Move every use of `from` by this node over to `to`.
  std::size_t moved = 0;
  for (auto it = from->users_.begin(); it != from->users_.end();) {
    if (*it == this) {
      it = from->users_.erase(it);
      ++moved;
    } else {
      ++it;
    }
  }
  for (std::size_t i = 0; i < moved; ++i)
    to->users_.push_back(this);
}

std::string Node::sourceHint() const {
  auto it = meta_.find("stack_trace");
  if (it == meta_.end())
    return {};
  const std::string &trace = it->second;
  // The innermost frame is last; report its "File ..., line N" line.
  std::size_t pos = trace.rfind("File \"");
  if (pos == std::string::npos)
    return {};
  std::size_t end = trace.find('\n', pos);
  return trace.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
}

} // namespace tico
