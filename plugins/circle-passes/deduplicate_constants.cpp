// deduplicate-constants: one buffer and one tensor per distinct constant.
//
// Buffers: two buffers with the same bytes are merged when every tensor that refers to either has the same type and shape,
// so a merged payload is never reinterpreted. Buffers of variable tensors (mutable state) and
// metadata buffers are left alone. Tensors: within a subgraph, constant tensors with the same
// buffer and contract (type, shape, quantization) are merged, so that `cse` sees equal
// operands as the same tensor. The first occurrence (lowest index) is kept; graph outputs are
// never replaced.
//
// Cost: only buffers of the same type and shape are compared, first by a fingerprint of a few
// sampled windows, then byte by byte. A content hash of every payload would read every weight
// byte on every run of the pass (an LLM's gigabytes, twice per until_no_change stage); trained
// and random weights differ in the first window already.
#include "constants.h"
#include "pass_registration.h"
#include "passes.h"

#include "tico/circle/edit.h"

#include <cstring>
#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace tico::circle_passes {
namespace {

// Converted payloads (the dtype policy's float32 views of half-precision weights) are compared
// through their 16-bit source, so deduplication never converts a model's weights in memory; a
// converted payload and a plain one are never merged (a missed merge is harmless).
struct Conversion {
  DType from = DType::Unknown, to = DType::Unknown;
  bool operator==(const Conversion &) const = default;
};

Conversion conversionOf(const TensorData &data) {
  if (!data.storage || !data.storage->convertedFrom())
    return {};
  return {data.storage->convertedFromDType(), data.storage->convertedToDType()};
}

// The view whose bytes are compared: the 16-bit source of a converted payload, else itself.
TensorData comparedView(const TensorData &data) {
  if (conversionOf(data).from == DType::Unknown)
    return data;
  TensorData source = data;
  source.storage = data.storage->convertedFrom();
  source.dtype = data.storage->convertedFromDType();
  return source;
}

// Calls `fn(pointer, size)` on the row-major bytes of the compared view, copying only strided
// views.
template <typename Fn> auto withBytes(const TensorData &data, Fn &&fn) {
  const TensorData view = comparedView(data);
  if (view.isContiguous())
    return fn(view.data(), view.nbytes());
  std::vector<std::byte> bytes = view.contiguousBytes();
  return fn(bytes.data(), bytes.size());
}

// FNV-1a over three 64-byte windows (start, middle, end) of the compared bytes.
uint64_t fingerprint(const TensorData &data) {
  return withBytes(data, [](const std::byte *p, std::size_t n) {
    uint64_t h = 1469598103934665603ull;
    constexpr std::size_t kWindow = 64;
    const std::size_t starts[] = {0, n / 2 > kWindow / 2 ? n / 2 - kWindow / 2 : 0, n > kWindow ? n - kWindow : 0};
    for (std::size_t start : starts)
      for (std::size_t i = start; i < std::min(n, start + kWindow); ++i) {
        h ^= static_cast<uint8_t>(p[i]);
        h *= 1099511628211ull;
      }
    return h ^ n;
  });
}

bool sameBytes(const TensorData &a, const TensorData &b) {
  if (a.nbytes() != b.nbytes() || !(conversionOf(a) == conversionOf(b)))
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
  // Representatives per (type, shape), in buffer order, with their fingerprints (computed only
  // when a second buffer of that type and shape turns up).
  struct Representative {
    uint32_t buffer;
    std::optional<uint64_t> fingerprint;
  };
  std::map<std::pair<int, std::vector<int32_t>>, std::vector<Representative>> groups;
  std::vector<uint32_t> replacement(model.buffers.size());
  bool changed = false;
  for (uint32_t b = 0; b < model.buffers.size(); ++b) {
    replacement[b] = b;
    const auto &data = model.buffers[b].data;
    if (b == 0 || !data || !uses[b].eligible || !uses[b].seen)
      continue;
    auto &candidates = groups[{static_cast<int>(uses[b].type), uses[b].shape}];
    std::optional<uint64_t> own;
    for (Representative &c : candidates) {
      const TensorData &other = *model.buffers[c.buffer].data;
      if (!c.fingerprint)
        c.fingerprint = fingerprint(other);
      if (!own)
        own = fingerprint(*data);
      if (*c.fingerprint == *own && sameBytes(other, *data)) {
        replacement[b] = c.buffer;
        changed = true;
        break;
      }
    }
    if (replacement[b] == b)
      candidates.push_back({b, own});
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
