// `npy`: a directory of .npy files.
//
//   calib/batch_0/x.npy  calib/batch_0/mask.npy   one sub-directory per batch (natural order,
//   calib/batch_1/x.npy  ...                      batch_2 before batch_10), one file per input
//                                                 named after the input or its index ("0.npy")
//   calib/0.npy  calib/1.npy  ...                 a model with one input: one file per batch
#include "batch_support.h"
#include "sources.h"

#include <tico/io/npy.h>
#include <tico/support/error.h>

namespace tico::calib {
namespace {

namespace fs = std::filesystem;

bool isSubdirectory(const fs::directory_entry &e) {
  std::error_code ec;
  return e.is_directory(ec);
}

class NpyFolderSource : public CalibrationSource {
public:
  explicit NpyFolderSource(const CalibrationRequest &request) : root_(request.location), inputs_(request.inputs) {
    std::error_code ec;
    if (!fs::is_directory(root_, ec))
      throw Error("npy calibration data '" + root_.string() + "' is not a directory" +
                  (fs::exists(root_, ec) ? "" : " (it does not exist)"));
    std::vector<fs::path> files = listDirectory(root_, isNpyFile);
    std::vector<fs::path> dirs = listDirectory(root_, isSubdirectory);
    if (!files.empty() && !dirs.empty())
      throw Error("npy folder '" + root_.string() + "' holds both .npy files ('" + files[0].filename().string() +
                  "') and sub-directories ('" + dirs[0].filename().string() +
                  "'); use one sub-directory per batch, or, for a single-input model, one .npy file per batch");
    if (files.empty() && dirs.empty())
      throw Error("npy folder '" + root_.string() + "' holds no .npy file and no batch sub-directory");
    one_file_per_batch_ = !files.empty();
    if (one_file_per_batch_ && inputs_.size() != 1)
      throw Error("npy folder '" + root_.string() + "' holds one .npy file per batch, which is for a model with one "
                  "input; the graph has " + std::to_string(inputs_.size()) +
                  " inputs: put each batch in its own sub-directory with one file per input (<input name>.npy)");
    batches_ = one_file_per_batch_ ? std::move(files) : std::move(dirs);
    batches_.resize(limitBatches(batches_.size(), request));
  }

  std::size_t size() const override { return batches_.size(); }

  CalibrationBatch batch(std::size_t index) override {
    const fs::path &at = batches_.at(index);
    if (one_file_per_batch_) {
      TensorPtr t = readNpy(at.string());
      checkDType(*t, inputs_, 0, "'" + at.string() + "'");
      return {t};
    }
    std::vector<std::string> names;
    for (const fs::path &file : listDirectory(at, isNpyFile))
      names.push_back(file.stem().string());
    return arraysToBatch(names, inputs_, "batch directory '" + at.string() + "'", "", [&](const std::string &name) {
      const std::string path = (at / (name + ".npy")).string();
      return std::make_pair(readNpy(path), "'" + path + "'");
    });
  }

  std::string describe() const override {
    return "npy folder '" + root_.string() + "' (" + std::to_string(batches_.size()) + " batch" +
           (batches_.size() == 1 ? "" : "es") + ")";
  }

private:
  fs::path root_;
  std::vector<CalibrationInput> inputs_;
  bool one_file_per_batch_ = false;
  std::vector<fs::path> batches_; // files or sub-directories, in natural order
};

bool acceptsNpyFolder(const std::string &location) {
  std::error_code ec;
  if (!fs::is_directory(location, ec))
    return false;
  try {
    return !listDirectory(location, isNpyFile).empty() || !listDirectory(location, isBatchDirectory).empty();
  } catch (const Error &) {
    return false; // unreadable: let a named source report it
  }
}

} // namespace

CalibrationSourceSpec npySource() {
  return {"npy",
          "a directory of .npy files: one sub-directory per batch holding <input name>.npy (or <index>.npy) "
          "per input, or one file per batch for a single-input model",
          acceptsNpyFolder,
          [](const CalibrationRequest &request) { return std::make_unique<NpyFolderSource>(request); }};
}

} // namespace tico::calib
