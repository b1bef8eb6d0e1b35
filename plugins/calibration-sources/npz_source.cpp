// `npz`: NumPy .npz files (numpy.savez or numpy.savez_compressed).
//
//   batch.npz               one file, one batch: arrays named after the inputs, or by index
//                           ("0", "1", ...), or numpy's positional names ("arr_0", "arr_1", ...)
//   calib/0.npz calib/1.npz a directory of them: one batch per file, in natural order
#include "batch_support.h"
#include "npz_archive.h"
#include "sources.h"

#include <tico/support/error.h>

namespace tico::calib {
namespace {

namespace fs = std::filesystem;

class NpzSource : public CalibrationSource {
public:
  explicit NpzSource(const CalibrationRequest &request) : location_(request.location), inputs_(request.inputs) {
    std::error_code ec;
    if (fs::is_directory(location_, ec)) {
      files_ = listDirectory(location_, isNpzFile);
      if (files_.empty())
        throw Error("npz calibration directory '" + location_ + "' holds no .npz file");
      folder_ = true;
    } else {
      NpzArchive check(location_); // a missing or malformed file is reported before calibration starts
      files_ = {location_};
    }
    files_.resize(limitBatches(files_.size(), request));
  }

  std::size_t size() const override { return files_.size(); }

  CalibrationBatch batch(std::size_t index) override {
    const std::string path = files_.at(index).string();
    NpzArchive archive(path);
    return arraysToBatch(archive.names(), inputs_, "'" + path + "'", "arr_", [&](const std::string &name) {
      return std::make_pair(archive.read(name), archive.label(name));
    });
  }

  std::string describe() const override {
    if (!folder_)
      return "npz file '" + location_ + "' (1 batch)";
    return "npz folder '" + location_ + "' (" + std::to_string(files_.size()) + " batch" +
           (files_.size() == 1 ? "" : "es") + ")";
  }

private:
  std::string location_;
  std::vector<CalibrationInput> inputs_;
  bool folder_ = false;
  std::vector<fs::path> files_;
};

bool acceptsNpz(const std::string &location) {
  std::error_code ec;
  if (fs::is_directory(location, ec)) {
    try {
      return !listDirectory(location, isNpzFile).empty();
    } catch (const Error &) {
      return false;
    }
  }
  return fs::path(location).extension() == ".npz";
}

} // namespace

CalibrationSourceSpec npzSource() {
  return {"npz",
          "a .npz file (one batch; arrays named after the inputs, their index or arr_N), or a directory of them "
          "(one batch per file)",
          acceptsNpz, [](const CalibrationRequest &request) { return std::make_unique<NpzSource>(request); }};
}

} // namespace tico::calib
