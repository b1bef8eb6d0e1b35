#include "pt2/archive_image.h"

#include "tico/support/error.h"

namespace tico::pt2 {

ArchiveImage ArchiveImage::open(const std::string &path) { return mapped(MappedFile::open(path)); }

ArchiveImage ArchiveImage::mapped(std::shared_ptr<const MappedFile> file) {
  if (!file)
    throw Error("no archive file");
  ArchiveImage image;
  image.data_ = file->data();
  image.size_ = file->size();
  image.name_ = file->path();
  image.file_ = std::move(file);
  return image;
}

ArchiveImage ArchiveImage::borrowed(std::shared_ptr<const Storage> bytes, std::string name) {
  if (!bytes)
    throw Error(name + ": no archive bytes");
  ArchiveImage image;
  image.data_ = bytes->data();
  image.size_ = bytes->size();
  image.name_ = std::move(name);
  image.bytes_ = std::move(bytes);
  return image;
}

std::shared_ptr<const Storage> ArchiveImage::slice(std::size_t offset, std::size_t size) const {
  if (offset > size_ || size > size_ - offset)
    throw Error(name_ + ": range [" + std::to_string(offset) + ", +" + std::to_string(size) +
                ") lies outside the archive (" + std::to_string(size_) + " bytes)");
  if (file_)
    return Storage::fromMapped(file_, offset, size);
  return Storage::fromExternal(data_ + offset, size, bytes_);
}

} // namespace tico::pt2
