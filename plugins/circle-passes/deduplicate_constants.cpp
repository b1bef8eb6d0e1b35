// deduplicate-constants: one buffer and one tensor per distinct constant.
//
// Buffers: two buffers with the same bytes (found by a content hash, confirmed by comparing
// the bytes) are merged when every tensor that refers to either has the same type and shape,
// so a merged payload is never reinterpreted. Buffers of variable tensors (mutable state) and
// metadata buffers are left alone. Tensors: within a subgraph, constant tensors with the same
// buffer and contract (type, shape, quantization) are merged, so that `cse` sees equal
// operands as the same tensor. The first occurrence (lowest index) is kept; graph outputs are
// never replaced.
#include "constants.h"
#include "pass_registration.h"
#include "passes.h"

#include "tico/circle/edit.h"

#include <cstring>
#include <map>
#include <set>

namespace tico::circle_passes {
namespace {

// Widened payloads (the dtype policy's float32 views of half-precision weights) are hashed and
// compared through their 16-bit source, so deduplication never converts a model's weights in
// memory; a widened payload and a plain one are never merged (a missed merge is harmless).
DType widenedFrom(const TensorData &data) {
  return data.storage && data.storage->widenedFrom() ? data.storage->widenedFromDType() : DType::Unknown;
}

// Calls `fn(pointer, size)` on the row-major bytes of `data` (of its 16-bit source when it is
// widened), copying only strided views.
template <typename Fn> auto withBytes(const TensorData &data, Fn &&fn) {
  if (widenedFrom(data) != DType::Unknown) {
    TensorData narrow = data;
    narrow.storage = data.storage->widenedFrom();
    narrow.dtype = widenedFrom(data);
    std::vector<std::byte> bytes = narrow.contiguousBytes();
    return fn(bytes.data(), bytes.size());
  }
  if (data.isContiguous())
    return fn(data.data(), data.nbytes());
  std::vector<std::byte> bytes = data.contiguousBytes();
  return fn(bytes.data(), bytes.size());
}

uint64_t contentHash(const TensorData &data) {
  return withBytes(data, [](const std::byte *p, std::size_t n) {
    uint64_t h = 1469598103934665603ull; // FNV-1a
    for (std::size_t i = 0; i < n; ++i) {
      h ^= static_cast<uint8_t>(p[i]);
      h *= 1099511628211ull;
    }
    return h ^ n;
  });
}

bool sameBytes(const TensorData &a, const TensorData &b) {
  if (a.nbytes() != b.nbytes() || widenedFrom(a) != widenedFrom(b))
    return false;
  return withBytes(a, [&](const std::byte *pa, std::size_t n) {
    return withBytes(b, [&](const std::byte *pb, std::size_t) { return n == 0 || std::memcmp(pa, pb, n) == 0; });
  });
}

struct BufferUse {
  bool eligible = true; // no variable tensor, not metadata, consistent type/shape
  bool seen = false;
  circle::TensorType type = circle::TensorType::FLOAT32;
  std::vector<int32_t> shape;
};

bool mergeBuffers(CircleModel &model) {
  std::vector<BufferUse> uses(model.buffers.size());
  for (const auto &m : model.metadata)
    if (m.second < uses.size())
      uses[m.second].eligible = false;
  for (const auto &g : model.subgraphs)
    for (const auto &t : g.tensors) {
      if (t.buffer == 0 || t.buffer >= uses.size())
        continue;
      BufferUse &u = uses[t.buffer];
      if (t.is_variable)
        u.eligible = false;
      if (u.seen && (u.type != t.type || u.shape != t.shape))
        u.eligible = false;
      u.seen = true;
      u.type = t.type;
      u.shape = t.shape;
    }
  // Representative per (hash, type, shape), in buffer order.
  std::map<std::tuple<uint64_t, int, std::vector<int32_t>>, std::vector<uint32_t>> groups;
  std::vector<uint32_t> replacement(model.buffers.size());
  bool changed = false;
  for (uint32_t b = 0; b < model.buffers.size(); ++b) {
    replacement[b] = b;
    const auto &data = model.buffers[b].data;
    if (b == 0 || !data || !uses[b].eligible || !uses[b].seen)
      continue;
    auto &candidates = groups[{contentHash(*data), static_cast<int>(uses[b].type), uses[b].shape}];
    for (uint32_t c : candidates)
      if (sameBytes(*model.buffers[c].data, *data)) {
        replacement[b] = c;
        changed = true;
        break;
      }
    if (replacement[b] == b)
      candidates.push_back(b);
  }
  if (!changed)
    return false;
  for (auto &g : model.subgraphs)
    for (auto &t : g.tensors)
      if (t.buffer < replacement.size())
        t.buffer = replacement[t.buffer];
  return true;
}

void mergeTensors(SubgraphEditor &editor) {
  std::map<uint32_t, std::vector<int32_t>> by_buffer; // buffer -> kept constant tensors
  const int32_t count = static_cast<int32_t>(editor.graph().tensors.size());
  for (int32_t t = 0; t < count; ++t) {
    if (!editor.isConstantTensor(t))
      continue;
    auto &kept = by_buffer[editor.tensor(t).buffer];
    int32_t same = -1;
    for (int32_t k : kept)
      if (sameContract(editor.tensor(k), editor.tensor(t))) {
        same = k;
        break;
      }
    if (same < 0) {
      kept.push_back(t);
      continue;
    }
    if (!editor.isGraphOutput(t))
      editor.replaceUses(t, same);
  }
}

class DeduplicateConstants final : public CirclePass {
public:
  explicit DeduplicateConstants(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    bool changed = mergeBuffers(model);
    changed |= forEachSubgraph(model, mergeTensors);
    return changed;
  }
};

} // namespace

void registerDeduplicateConstants(Registrar &r) {
  registerCirclePass<DeduplicateConstants>(
      r, "deduplicate-constants",
      "share one buffer between identical constant payloads (same bytes, type and shape) and one tensor "
      "between identical constant tensors");
}

} // namespace tico::circle_passes
