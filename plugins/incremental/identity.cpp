// Canonical callable identity (docs/incremental.md, "Identity"). Each operator gets a
// structural key: its code, version and options, and for every input where the value comes
// from — a callable input (by position), another operator of the callable (by that operator's
// key and output slot) or a constant (its contract and payload digest). Keys are Merkle hashes
// in dataflow order, so they never depend on tensor names or tensor numbering. Operators are
// then listed in a canonical topological order (ready operators by smallest key) and hashed
// with the boundary contracts. Equal computations over equal weights get equal ids across
// conversions; a changed weight or option changes the id.
#include "incremental.h"

#include "tico/circle/query.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <queue>

namespace tico::incremental {
namespace {

struct Hasher {
  uint64_t h = 1469598103934665603ull;
  void bytes(const void *p, std::size_t n) {
    const auto *b = static_cast<const uint8_t *>(p);
    for (std::size_t i = 0; i < n; ++i) {
      h ^= b[i];
      h *= 1099511628211ull;
    }
  }
  template <typename T> void value(const T &v) { bytes(&v, sizeof v); }
  void text(const std::string &s) {
    value<uint64_t>(s.size());
    bytes(s.data(), s.size());
  }
  template <typename T> void list(const std::vector<T> &v) {
    value<uint64_t>(v.size());
    if (!v.empty())
      bytes(v.data(), v.size() * sizeof(T));
  }
};

void contract(Hasher &h, const CircleTensor &t) {
  h.value(static_cast<int32_t>(t.type));
  h.list(t.shape);
  h.list(t.shape_signature);
  h.value<uint8_t>(t.is_variable);
  if (const auto *q = t.quantization.get()) {
    h.value<uint8_t>(1);
    h.list(q->scale);
    h.list(q->zero_point);
    h.list(q->min);
    h.list(q->max);
    h.value(q->quantized_dimension);
  } else {
    h.value<uint8_t>(0);
  }
}

} // namespace

std::string digestBytes(const void *data, std::size_t size, uint64_t seed) {
  Hasher h{seed};
  h.bytes(data, size);
  char buf[40];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h.h));
  return buf;
}

std::string callableIdentity(const CircleModel &model, const Callable &callable) {
  const CircleSubGraph &g = model.subgraphs.at(0);
  std::map<int32_t, std::size_t> input_position;
  for (std::size_t i = 0; i < callable.inputs.size(); ++i)
    input_position.emplace(callable.inputs[i], i);
  std::map<int32_t, std::pair<std::size_t, std::size_t>> written; // tensor -> (op slot in callable, output slot)
  for (std::size_t k = 0; k < callable.operators.size(); ++k) {
    const auto &op = g.operators[callable.operators[k]];
    for (std::size_t s = 0; s < op.outputs.size(); ++s)
      written.emplace(op.outputs[s], std::make_pair(k, s));
  }
  std::map<uint32_t, uint64_t> payload_digest; // buffer -> digest
  auto payload = [&](uint32_t buffer) {
    auto it = payload_digest.find(buffer);
    if (it != payload_digest.end())
      return it->second;
    Hasher h;
    if (buffer < model.buffers.size() && model.buffers[buffer].data) {
      auto b = model.buffers[buffer].data->contiguousBytes();
      h.bytes(b.data(), b.size());
    }
    payload_digest.emplace(buffer, h.h);
    return h.h;
  };

  // Merkle keys in execution order (a topological order).
  std::vector<uint64_t> key(callable.operators.size());
  std::vector<std::vector<std::size_t>> successors(callable.operators.size());
  std::vector<std::size_t> pending(callable.operators.size(), 0);
  for (std::size_t k = 0; k < callable.operators.size(); ++k) {
    const CircleOperator &op = g.operators[callable.operators[k]];
    Hasher h;
    h.value(static_cast<int32_t>(builtinOf(model, op)));
    h.text(customCodeOf(model, op));
    h.value(versionOf(model, op));
    h.list(optionsBytes(op.builtin_options));
    h.list(op.custom_options);
    for (int32_t t : op.inputs) {
      if (t < 0) {
        h.value<uint8_t>('-');
      } else if (auto w = written.find(t); w != written.end() && w->second.first < k) {
        h.value<uint8_t>('o');
        h.value(key[w->second.first]);
        h.value<uint64_t>(w->second.second);
        successors[w->second.first].push_back(k);
        ++pending[k];
      } else if (auto in = input_position.find(t); in != input_position.end()) {
        h.value<uint8_t>('i');
        h.value<uint64_t>(in->second);
      } else {
        h.value<uint8_t>('c');
        contract(h, g.tensors[t]);
        h.value(payload(g.tensors[t].buffer));
      }
    }
    for (int32_t t : op.outputs) {
      h.value<uint8_t>('>');
      if (t >= 0)
        contract(h, g.tensors[t]);
    }
    key[k] = h.h;
  }

  // Canonical topological order: among ready operators, the smallest key first (operators with
  // equal keys are interchangeable, so their relative order does not matter).
  using Entry = std::pair<uint64_t, std::size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (std::size_t k = 0; k < pending.size(); ++k)
    if (!pending[k])
      ready.push({key[k], k});
  Hasher id;
  id.text(kManifestName);
  while (!ready.empty()) {
    auto [k_key, k] = ready.top();
    ready.pop();
    id.value(k_key);
    for (std::size_t s : successors[k])
      if (--pending[s] == 0)
        ready.push({key[s], s});
  }
  for (int32_t t : callable.inputs) {
    id.value<uint8_t>('I');
    contract(id, g.tensors[t]);
  }
  for (int32_t t : callable.outputs) {
    id.value<uint8_t>('O');
    contract(id, g.tensors[t]);
    auto w = written.find(t);
    if (w != written.end()) {
      id.value(key[w->second.first]);
      id.value<uint64_t>(w->second.second);
    }
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "r:%016llx", static_cast<unsigned long long>(id.h));
  return buf;
}

} // namespace tico::incremental
