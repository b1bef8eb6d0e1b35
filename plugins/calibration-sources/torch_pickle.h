// Reading what torch.save writes for tensors, without LibTorch: a zip whose `<root>/data.pkl`
// is a pickle (protocol 2 by default) whose tensors are `torch._utils._rebuild_tensor_v2` calls
// over persistent storage ids `('storage', torch.<Type>Storage, key, location, numel)`, each
// storage the raw bytes of `<root>/data/<key>`.
//
// Only the pickle subset that plain containers of tensors use is understood (tuples, lists,
// dicts, OrderedDict, None, bools, numbers, strings); anything else - another global, an opcode
// outside that subset - is an error naming it, never a guess.
//
// A pickle is untrusted input that every consumer walks recursively, so the reader refuses,
// with an error naming the offset, what would make a walk unbounded: a container that holds
// itself (directly or through others), nesting deeper than kMaxPickleDepth, a structure whose
// tree form (shared references counted at each use) exceeds kMaxPickleExpanded values, and more
// than kMaxPickleValues values built in all.
#pragma once

#include "pt2/archive_image.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tico::calib {

// Limits (see above). Example inputs are a few dozen tensors in tuples, lists and dicts a few
// levels deep; these leave orders of magnitude of room.
constexpr uint32_t kMaxPickleDepth = 64;
constexpr uint64_t kMaxPickleExpanded = uint64_t{1} << 20;
constexpr uint64_t kMaxPickleValues = uint64_t{1} << 20;

struct PickleValue;
using PickleRef = std::shared_ptr<PickleValue>;

struct PickleValue {
  enum class Kind { None, Bool, Int, Float, String, Tuple, List, Dict, Global, Storage, Tensor };
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0.0;
  std::string text;              // String; Global as "module.name"
  std::vector<PickleRef> items;  // Tuple, List; Dict as key, value, key, value, ...
  std::shared_ptr<const TensorData> tensor; // Tensor
  std::shared_ptr<const Storage> storage;   // Storage
  DType storage_dtype = DType::Unknown;     // Storage
  // Bookkeeping of the limits: levels below this value, values in its tree form, and whether it
  // sits in another container (a contained container is complete: changing it could close a cycle).
  uint32_t depth = 0;
  uint64_t expanded = 1;
  bool contained = false;
};

// "tuple", "int", "tensor", ... for messages.
std::string kindName(PickleValue::Kind kind);

// Loads the object a torch.save archive holds. `image` is that archive (it may itself be an
// entry of a .pt2); tensors point into it. Throws tico::Error naming image.name().
PickleRef loadTorchSave(const pt2::ArchiveImage &image);

} // namespace tico::calib
