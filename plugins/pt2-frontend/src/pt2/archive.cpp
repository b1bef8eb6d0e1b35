#include "pt2/archive.h"

#include "tico/support/clipped.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace tico::pt2 {
namespace {

// The only container version load_pt2 in PyTorch 2.13 accepts.
constexpr int kArchiveVersion = 0;

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  return text;
}

std::string printable(std::string_view text, std::size_t limit = 40) {
  std::string out;
  for (char c : text.substr(0, limit))
    out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  if (text.size() > limit)
    out += "...";
  return out;
}

} // namespace

Archive::Archive(const std::string &path) : Archive(ArchiveImage::open(path)) {}

Archive::Archive(ArchiveImage image) {
  zip_ = std::make_unique<ZipReader>(std::move(image));
  indexEntries();
  checkMarkers();
  chooseModel();
}

void Archive::fail(const std::string &problem) const { throw Error(path() + ": " + problem); }

void Archive::indexEntries() {
  const auto &entries = zip_->entries();
  if (entries.empty())
    fail("the zip archive is empty; not a torch.export archive");
  // PyTorchStreamWriter puts every entry under one folder named after the file; which name it
  // is does not matter (renaming the file does not rename it), only that all entries agree.
  for (const ZipEntry &entry : entries) {
    std::size_t slash = entry.name.find('/');
    if (slash == std::string::npos || slash == 0)
      fail("entry '" + clipped(entry.name) + "' is not inside a root folder; torch.export archives keep every entry under one folder");
    std::string_view folder(entry.name.data(), slash);
    if (root_.empty())
      root_ = folder;
    else if (folder != root_)
      fail("entries are not under one root folder ('" + clipped(root_) + "/' and '" + clipped(folder) + "/')");
    by_name_.emplace(entry.name.substr(slash + 1), &entry);
  }
}

const ZipEntry *Archive::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::string_view Archive::read(std::string_view name) const {
  const ZipEntry *entry = find(name);
  if (!entry)
    fail("missing entry '" + clipped(root_ + "/" + std::string(name)) + "'");
  return zip_->checkedBytes(*entry);
}

std::vector<std::string> Archive::names() const {
  std::vector<std::string> out;
  out.reserve(by_name_.size());
  for (const auto &[name, entry] : by_name_)
    out.push_back(name);
  return out;
}

void Archive::checkMarkers() {
  const ZipEntry *format = find("archive_format");
  if (!format)
    fail("not a torch.export archive (no archive_format entry)");
  std::string_view format_text = trimmed(zip_->checkedBytes(*format));
  if (format_text != "pt2")
    fail("archive_format is '" + printable(format_text) + "', expected 'pt2' (a torch.export archive)");

  const ZipEntry *version = find("archive_version");
  if (!version)
    fail("missing archive_version entry");
  std::string_view version_text = trimmed(zip_->checkedBytes(*version));
  int value = 0;
  bool numeric = !version_text.empty() && version_text.size() < 9 &&
                 std::all_of(version_text.begin(), version_text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!numeric)
    fail("archive_version '" + printable(version_text) + "' is not a number");
  for (char c : version_text)
    value = value * 10 + (c - '0');
  if (value != kArchiveVersion)
    fail("archive_version is " + std::to_string(value) + "; this tico reads archive version " +
         std::to_string(kArchiveVersion) + " (written by PyTorch 2.13)");

  // Tensor bytes are raw machine order; only little-endian writers are understood.
  if (const ZipEntry *order = find("byteorder")) {
    std::string_view order_text = trimmed(zip_->checkedBytes(*order));
    if (order_text != "little")
      fail("byteorder is '" + printable(order_text) + "'; only little-endian archives are supported");
  } else {
    TICO_DEBUG << path() << ": no byteorder entry; assuming little-endian";
  }
}

void Archive::chooseModel() {
  std::vector<std::string> models;
  for (const auto &[name, entry] : by_name_) {
    constexpr std::string_view prefix = "models/", suffix = ".json";
    if (name.size() > prefix.size() + suffix.size() && name.starts_with(prefix) && name.ends_with(suffix) &&
        name.find('/', prefix.size()) == std::string::npos)
      models.push_back(name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()));
  }
  if (models.empty())
    fail("no exported program in the archive (no models/<name>.json entry)");
  if (models.size() == 1) {
    model_ = models.front();
    return;
  }
  // torch.export.save always names its program "model"; other names come from package_pt2
  // callers that bundle several programs.
  if (std::find(models.begin(), models.end(), "model") == models.end()) {
    std::string list;
    for (const auto &m : models)
      list += (list.empty() ? "" : ", ") + m;
    fail("the archive holds several exported programs (" + clipped(list) + ") and none is called 'model'");
  }
  model_ = "model";
  for (const auto &m : models)
    if (m != model_) {
      TICO_INFO << path() << ": ignoring exported program '" << clipped(m) << "' (reading 'model')";
    }
}

bool looksLikePt2(const std::string &path) {
  // Only regular files are sniffed: reading a FIFO's first bytes would block.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return false;
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  if (!in.read(magic, 4) || std::memcmp(magic, "PK\x03\x04", 4) != 0)
    return false;
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".pt2") == 0)
    return true;
  try {
    ZipReader zip(MappedFile::open(path));
    return std::any_of(zip.entries().begin(), zip.entries().end(), [](const ZipEntry &e) {
      return e.name == "archive_format" || e.name.ends_with("/archive_format");
    });
  } catch (const std::exception &) {
    return false;
  }
}

} // namespace tico::pt2
