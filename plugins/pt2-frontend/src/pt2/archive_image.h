// The bytes of a .pt2 archive: a file mapped read-only, or a buffer lent from memory (the
// archive a Python caller wrote with torch.export.save into a BytesIO). Either way the reader
// works on the same pointer and size, and payloads become Storages that point into them.
#pragma once

#include "tico/ir/tensor_data.h"

#include <cstddef>
#include <memory>
#include <string>

namespace tico::pt2 {

class ArchiveImage {
public:
  // Maps `path` (throws tico::Error naming it when it cannot).
  static ArchiveImage open(const std::string &path);
  static ArchiveImage mapped(std::shared_ptr<const MappedFile> file);
  // `bytes` is the whole archive; `name` stands for the file in messages.
  static ArchiveImage borrowed(std::shared_ptr<const Storage> bytes, std::string name);

  const std::byte *data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string &name() const { return name_; }

  // [offset, offset + size) as a Storage that keeps the image alive: a slice of the mapping
  // (so writers can copy it in the kernel) or a view of the borrowed buffer (no copy either).
  // The range must lie inside the image (the zip reader checked it).
  std::shared_ptr<const Storage> slice(std::size_t offset, std::size_t size) const;

private:
  std::shared_ptr<const MappedFile> file_;
  std::shared_ptr<const Storage> bytes_;
  const std::byte *data_ = nullptr;
  std::size_t size_ = 0;
  std::string name_;
};

} // namespace tico::pt2
