#include "torch_pickle.h"

#include "pt2/zip_reader.h"

#include <tico/support/error.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace tico::calib {
namespace {

using Kind = PickleValue::Kind;

// torch.save names a storage by its legacy typed class.
const std::map<std::string, DType> kStorageTypes = {
    {"torch.FloatStorage", DType::Float32},   {"torch.DoubleStorage", DType::Float64},
    {"torch.HalfStorage", DType::Float16},    {"torch.BFloat16Storage", DType::BFloat16},
    {"torch.LongStorage", DType::Int64},      {"torch.IntStorage", DType::Int32},
    {"torch.ShortStorage", DType::Int16},     {"torch.CharStorage", DType::Int8},
    {"torch.ByteStorage", DType::UInt8},      {"torch.BoolStorage", DType::Bool},
};

class Unpickler {
public:
  Unpickler(std::string_view bytes, const pt2::ZipReader &zip, std::string root, std::string name)
      : in_(bytes), zip_(zip), root_(std::move(root)), name_(std::move(name)) {}

  PickleRef make(Kind kind) {
    if (++made_ > kMaxPickleValues)
      fail(pos_, "more than " + std::to_string(kMaxPickleValues) + " values");
    auto v = std::make_shared<PickleValue>();
    v->kind = kind;
    return v;
  }

  PickleRef run() {
    while (true) {
      const std::size_t at = pos_;
      const auto op = static_cast<uint8_t>(byte());
      if (op == '.') {
        if (stack_.size() != 1)
          fail(at, "STOP with " + std::to_string(stack_.size()) + " values on the stack");
        return stack_.back();
      }
      step(op, at);
    }
  }

private:
  [[noreturn]] void fail(std::size_t at, const std::string &problem) const {
    throw Error(name_ + ": data.pkl offset " + std::to_string(at) + ": " + problem);
  }
  char byte() {
    if (pos_ >= in_.size())
      fail(pos_, "the pickle ends without STOP");
    return in_[pos_++];
  }
  std::string_view take(uint64_t n) {
    if (n > in_.size() - pos_)
      fail(pos_, "the pickle ends inside an argument of " + std::to_string(n) + " bytes");
    std::string_view s = in_.substr(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return s;
  }
  uint64_t uint(int n) {
    std::string_view s = take(static_cast<uint64_t>(n));
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i)
      v = (v << 8) | static_cast<uint8_t>(s[static_cast<std::size_t>(i)]);
    return v;
  }
  PickleRef pop(std::size_t at) {
    if (stack_.empty() || (!marks_.empty() && stack_.size() == marks_.back()))
      fail(at, "pop from an empty stack");
    PickleRef v = stack_.back();
    stack_.pop_back();
    return v;
  }
  std::vector<PickleRef> popMark(std::size_t at) {
    if (marks_.empty())
      fail(at, "no MARK to pop to");
    std::vector<PickleRef> items(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  PickleRef &top(std::size_t at) {
    if (stack_.empty())
      fail(at, "the stack is empty");
    return stack_.back();
  }
  void push(PickleRef v) { stack_.push_back(std::move(v)); }
  // Every insertion of a value into a container goes through here: it keeps the structure a
  // finite tree-like walk (no cycles, bounded depth and expanded size).
  void adopt(PickleValue &parent, PickleRef child, std::size_t at) {
    if (child.get() == &parent)
      fail(at, "a " + kindName(parent.kind) + " that holds itself (cyclic pickles are refused)");
    child->contained = true;
    parent.depth = std::max(parent.depth, child->depth + 1);
    if (parent.depth > kMaxPickleDepth)
      fail(at, "values nested more than " + std::to_string(kMaxPickleDepth) + " levels deep");
    parent.expanded += child->expanded;
    if (parent.expanded > kMaxPickleExpanded)
      fail(at, "shared references expand to more than " + std::to_string(kMaxPickleExpanded) + " values");
    parent.items.push_back(std::move(child));
  }
  // Only a container no other one holds may change: one that is held and then grows could come
  // to hold its holder (a cycle), or be counted smaller than it is by its holders.
  void checkOpen(const PickleValue &container, std::size_t at) {
    if (container.contained)
      fail(at, "a " + kindName(container.kind) +
                   " changed after it was put in another container (cyclic pickles are refused)");
  }
  PickleRef tuple(std::vector<PickleRef> items, std::size_t at) {
    PickleRef t = make(Kind::Tuple);
    for (auto &v : items)
      adopt(*t, std::move(v), at);
    return t;
  }
  void memoPut(uint64_t key, std::size_t at) { memo_[key] = top(at); }
  void memoGet(uint64_t key, std::size_t at) {
    auto it = memo_.find(key);
    if (it == memo_.end())
      fail(at, "memo key " + std::to_string(key) + " was never stored");
    push(it->second);
  }
  void pushInt(int64_t v) {
    PickleRef r = make(Kind::Int);
    r->integer = v;
    push(r);
  }
  void pushString(std::string_view s) {
    PickleRef r = make(Kind::String);
    r->text = std::string(s);
    push(r);
  }
  void extend(PickleRef &container, std::vector<PickleRef> items, std::size_t at) {
    if (container->kind != Kind::List)
      fail(at, "APPEND to a " + kindName(container->kind));
    checkOpen(*container, at);
    for (auto &v : items)
      adopt(*container, std::move(v), at);
  }
  void setItems(PickleRef &container, std::vector<PickleRef> items, std::size_t at) {
    if (container->kind != Kind::Dict || items.size() % 2)
      fail(at, "SETITEM on a " + kindName(container->kind));
    checkOpen(*container, at);
    for (auto &v : items)
      adopt(*container, std::move(v), at);
  }

  void step(uint8_t op, std::size_t at) {
    switch (op) {
    case 0x80: // PROTO
      if (uint(1) > 5)
        fail(at, "pickle protocol above 5");
      return;
    case 0x95: // FRAME: a length hint only
      uint(8);
      return;
    case '(': marks_.push_back(stack_.size()); return;
    case '0': pop(at); return;
    case '1': popMark(at); return;
    case 'N': push(make(Kind::None)); return;
    case 0x88: case 0x89: { // NEWTRUE, NEWFALSE
      PickleRef b = make(Kind::Bool);
      b->boolean = op == 0x88;
      push(b);
      return;
    }
    case 'J': pushInt(static_cast<int32_t>(uint(4))); return;
    case 'K': pushInt(static_cast<int64_t>(uint(1))); return;
    case 'M': pushInt(static_cast<int64_t>(uint(2))); return;
    case 0x8a: { // LONG1: little-endian two's complement of n bytes
      const auto n = static_cast<int>(uint(1));
      if (n > 8)
        fail(at, "an integer of " + std::to_string(n) + " bytes does not fit 64 bits");
      uint64_t v = n ? uint(n) : 0;
      if (n && n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~uint64_t{0} << (8 * n);
      pushInt(static_cast<int64_t>(v));
      return;
    }
    case 'G': { // BINFLOAT, big-endian
      std::string_view s = take(8);
      uint64_t bits = 0;
      for (char c : s)
        bits = (bits << 8) | static_cast<uint8_t>(c);
      PickleRef f = make(Kind::Float);
      std::memcpy(&f->number, &bits, 8);
      push(f);
      return;
    }
    case 'X': pushString(take(uint(4))); return;      // BINUNICODE
    case 0x8c: pushString(take(uint(1))); return;     // SHORT_BINUNICODE
    case 0x8d: pushString(take(uint(8))); return;     // BINUNICODE8
    case 'U': pushString(take(uint(1))); return;      // SHORT_BINSTRING
    case 'T': pushString(take(uint(4))); return;      // BINSTRING
    case ')': push(tuple({}, at)); return;
    case 't': push(tuple(popMark(at), at)); return;
    case 0x85: case 0x86: case 0x87: { // TUPLE1..3
      std::vector<PickleRef> items(op - 0x84);
      for (auto it = items.rbegin(); it != items.rend(); ++it)
        *it = pop(at);
      push(tuple(std::move(items), at));
      return;
    }
    case ']': push(make(Kind::List)); return;
    case 'l': { PickleRef l = make(Kind::List); extend(l, popMark(at), at); push(l); return; }
    case 'a': { PickleRef v = pop(at); extend(top(at), {v}, at); return; }
    case 'e': { auto items = popMark(at); extend(top(at), std::move(items), at); return; }
    case '}': push(make(Kind::Dict)); return;
    case 'd': { PickleRef d = make(Kind::Dict); setItems(d, popMark(at), at); push(d); return; }
    case 's': { PickleRef v = pop(at), k = pop(at); setItems(top(at), {k, v}, at); return; }
    case 'u': { auto items = popMark(at); setItems(top(at), std::move(items), at); return; }
    case 'c': { // GLOBAL "module\nname\n"
      std::string module = line(at), name = line(at);
      PickleRef g = make(Kind::Global);
      g->text = module + "." + name;
      push(g);
      return;
    }
    case 0x93: { // STACK_GLOBAL
      PickleRef name = pop(at), module = pop(at);
      if (name->kind != Kind::String || module->kind != Kind::String)
        fail(at, "STACK_GLOBAL needs two strings");
      PickleRef g = make(Kind::Global);
      g->text = module->text + "." + name->text;
      push(g);
      return;
    }
    case 'R': { PickleRef args = pop(at), callable = pop(at); push(reduce(callable, args, at)); return; }
    case 'b': { // BUILD: only an empty state (what OrderedDict and plain tensors carry) is accepted
      PickleRef state = pop(at);
      if (!(state->kind == Kind::None || (state->kind == Kind::Dict && state->items.empty())))
        fail(at, "BUILD with state on a " + kindName(top(at)->kind) + " (objects with attributes are not supported)");
      return;
    }
    case 'Q': { PickleRef pid = pop(at); push(persistent(pid, at)); return; } // BINPERSID
    case 'q': memoPut(uint(1), at); return;   // BINPUT
    case 'r': memoPut(uint(4), at); return;   // LONG_BINPUT
    case 0x94: memoPut(memo_.size(), at); return; // MEMOIZE
    case 'h': memoGet(uint(1), at); return;   // BINGET
    case 'j': memoGet(uint(4), at); return;   // LONG_BINGET
    default:
      fail(at, "unsupported pickle opcode 0x" + hex(op) + (op >= 0x20 && op < 0x7f ? std::string(" '") + char(op) + "'" : "") +
                   "; the example inputs must be plain containers of tensors");
    }
  }

  static std::string hex(uint8_t v) {
    const char *digits = "0123456789abcdef";
    return {digits[v >> 4], digits[v & 15]};
  }

  std::string line(std::size_t at) {
    const auto nl = in_.find('\n', pos_);
    if (nl == std::string_view::npos)
      fail(at, "GLOBAL without a newline");
    std::string s(in_.substr(pos_, nl - pos_));
    pos_ = nl + 1;
    return s;
  }

  PickleRef reduce(const PickleRef &callable, const PickleRef &args, std::size_t at) {
    if (callable->kind != Kind::Global || args->kind != Kind::Tuple)
      fail(at, "REDUCE of a " + kindName(callable->kind) + " with a " + kindName(args->kind));
    if (callable->text == "collections.OrderedDict" && args->items.empty())
      return make(Kind::Dict);
    if (callable->text == "torch._utils._rebuild_tensor_v2")
      return rebuildTensor(args->items, at);
    fail(at, "unsupported pickle global '" + callable->text + "'; the example inputs must be plain containers of tensors");
  }

  static std::vector<int64_t> ints(const PickleRef &v) {
    std::vector<int64_t> out;
    if (v->kind != Kind::Tuple)
      throw Error("expected a tuple of integers, got a " + kindName(v->kind));
    for (const PickleRef &i : v->items) {
      if (i->kind != Kind::Int)
        throw Error("expected a tuple of integers, found a " + kindName(i->kind));
      out.push_back(i->integer);
    }
    return out;
  }

  // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
  PickleRef rebuildTensor(const std::vector<PickleRef> &a, std::size_t at) {
    if (a.size() < 6 || a[0]->kind != Kind::Storage || a[1]->kind != Kind::Int)
      fail(at, "_rebuild_tensor_v2 with unexpected arguments");
    auto t = std::make_shared<TensorData>();
    t->storage = a[0]->storage;
    t->dtype = a[0]->storage_dtype;
    t->storage_offset = a[1]->integer;
    try {
      t->sizes = ints(a[2]);
      t->strides = ints(a[3]);
      if (t->sizes.size() != t->strides.size())
        throw Error("sizes and strides differ in rank");
      t->checkBounds();
    } catch (const Error &e) {
      fail(at, std::string("a tensor's layout is malformed: ") + e.what());
    }
    PickleRef r = make(Kind::Tensor);
    r->tensor = std::move(t);
    return r;
  }

  // ('storage', <storage class>, key, location, numel)
  PickleRef persistent(const PickleRef &pid, std::size_t at) {
    const auto &p = pid->items;
    if (pid->kind != Kind::Tuple || p.size() != 5 || p[0]->kind != Kind::String || p[0]->text != "storage" ||
        p[1]->kind != Kind::Global || p[2]->kind != Kind::String || p[4]->kind != Kind::Int)
      fail(at, "a persistent id that is no ('storage', type, key, location, numel) tuple");
    auto type = kStorageTypes.find(p[1]->text);
    if (type == kStorageTypes.end())
      fail(at, "unsupported storage type '" + p[1]->text + "'");
    const std::string entry = root_ + "data/" + p[2]->text;
    const pt2::ZipEntry *found = nullptr;
    for (const pt2::ZipEntry &e : zip_.entries())
      if (e.name == entry)
        found = &e;
    if (!found)
      fail(at, "storage '" + p[2]->text + "' has no entry '" + entry + "'");
    const uint64_t need = static_cast<uint64_t>(p[4]->integer) * elementSize(type->second);
    if (p[4]->integer < 0 || found->size < need)
      fail(at, "storage '" + p[2]->text + "' holds " + std::to_string(found->size) + " bytes, fewer than its " +
                   std::to_string(p[4]->integer) + " elements need");
    PickleRef s = make(Kind::Storage);
    s->storage = zip_.image().slice(static_cast<std::size_t>(found->offset), static_cast<std::size_t>(need));
    s->storage_dtype = type->second;
    return s;
  }

  std::string_view in_;
  std::size_t pos_ = 0;
  const pt2::ZipReader &zip_;
  std::string root_;
  std::string name_;
  std::vector<PickleRef> stack_;
  std::vector<std::size_t> marks_;
  std::map<uint64_t, PickleRef> memo_;
  uint64_t made_ = 0;
};

} // namespace

std::string kindName(PickleValue::Kind kind) {
  switch (kind) {
  case Kind::None: return "None";
  case Kind::Bool: return "bool";
  case Kind::Int: return "int";
  case Kind::Float: return "float";
  case Kind::String: return "str";
  case Kind::Tuple: return "tuple";
  case Kind::List: return "list";
  case Kind::Dict: return "dict";
  case Kind::Global: return "global";
  case Kind::Storage: return "storage";
  case Kind::Tensor: return "tensor";
  }
  return "value";
}

PickleRef loadTorchSave(const pt2::ArchiveImage &image) {
  pt2::ZipReader zip(image);
  const pt2::ZipEntry *pickle = nullptr;
  for (const pt2::ZipEntry &e : zip.entries()) {
    const auto slash = e.name.find('/');
    if (slash != std::string::npos && e.name.substr(slash + 1) == "data.pkl")
      pickle = &e;
  }
  if (!pickle)
    throw Error(image.name() + ": no <root>/data.pkl entry; not a torch.save archive");
  const std::string root = pickle->name.substr(0, pickle->name.find('/') + 1);
  return Unpickler(zip.checkedBytes(*pickle), zip, root, image.name()).run();
}

} // namespace tico::calib
