#include "quant/offload_store.h"

#include "tico/support/error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace tico::quant {

OffloadStore::OffloadStore(const std::string &parent) {
  std::error_code ec;
  std::filesystem::path base = parent.empty() ? std::filesystem::temp_directory_path(ec) : std::filesystem::path(parent);
  if (ec)
    base = "/tmp";
  std::string pattern = (base / "tico-calibration-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw Error("cannot create a directory for offloaded calibration activations under '" + base.string() +
                "': " + std::strerror(errno) + " (set calibration.offload_dir)");
  directory_ = pattern;
  on_signal_ = std::make_unique<support::SignalCleanup>(directory_);
}

OffloadStore::~OffloadStore() {
  std::error_code ec;
  std::filesystem::remove_all(directory_, ec); // best effort: a destructor must not throw
  // on_signal_ unregisters after this body: a signal during the removal finds it still listed.
}

OffloadedTensor OffloadStore::save(const TensorData &t) {
  OffloadedTensor entry{directory_ + "/" + std::to_string(next_++) + ".bin", t.dtype, t.sizes};
  std::FILE *f = std::fopen(entry.path.c_str(), "wb");
  if (!f)
    throw Error("cannot write offloaded activation '" + entry.path + "': " + std::strerror(errno));
  bool ok = true;
  if (t.nbytes() > 0) {
    if (t.isContiguous()) {
      ok = std::fwrite(t.data(), 1, t.nbytes(), f) == t.nbytes();
    } else {
      const std::vector<std::byte> bytes = t.contiguousBytes();
      ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    }
  }
  const int saved_errno = errno;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    std::remove(entry.path.c_str());
    throw Error("cannot write offloaded activation '" + entry.path + "' (" + std::to_string(t.nbytes()) +
                " bytes): " + std::strerror(saved_errno) + "; free disk space or set calibration.offload_dir");
  }
  return entry;
}

std::shared_ptr<const TensorData> OffloadStore::load(const OffloadedTensor &entry) {
  auto t = std::make_shared<TensorData>();
  t->dtype = entry.dtype;
  t->sizes = entry.sizes;
  t->strides = TensorData::contiguousStrides(entry.sizes);
  if (t->nbytes() == 0) {
    t->storage = Storage::fromBytes({});
  } else {
    std::shared_ptr<const MappedFile> file = MappedFile::open(entry.path);
    t->storage = Storage::fromMapped(file, 0, file->size());
  }
  std::remove(entry.path.c_str());
  return t;
}

} // namespace tico::quant
