// Activations the calibration runner moves out of memory: one file per tensor in a private
// temporary directory, mapped back read-only when a node needs it (so a reloaded tensor costs
// page cache, not a heap copy). The directory goes away with the store, and with the process
// when SIGINT, SIGTERM or SIGHUP ends it (support/signal_cleanup.h).
#pragma once

#include "support/signal_cleanup.h"
#include "tico/ir/tensor_data.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tico::quant {

struct OffloadedTensor {
  std::string path;
  DType dtype = DType::Unknown;
  std::vector<int64_t> sizes;
};

class OffloadStore {
public:
  // Creates "tico-calibration-XXXXXX" under `parent` (empty: the system's temporary directory).
  // Throws tico::Error naming the directory when it cannot.
  explicit OffloadStore(const std::string &parent);
  ~OffloadStore();
  OffloadStore(const OffloadStore &) = delete;
  OffloadStore &operator=(const OffloadStore &) = delete;

  const std::string &directory() const { return directory_; }
  // Writes `t` (row-major) to a new file. Throws tico::Error on a write failure (disk full).
  OffloadedTensor save(const TensorData &t);
  // Maps the file back and unlinks it: the mapping keeps the data until the tensor is freed.
  std::shared_ptr<const TensorData> load(const OffloadedTensor &entry);

private:
  std::string directory_;
  uint64_t next_ = 0;
  std::unique_ptr<support::SignalCleanup> on_signal_; // registered once the directory exists
};

} // namespace tico::quant
