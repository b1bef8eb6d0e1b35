// Reading NumPy .npz files: a zip of .npy members, stored (numpy.savez) or deflated
// (numpy.savez_compressed). Members are read one at a time, when asked for.
#pragma once

#include "batch_support.h"
#include "pt2/zip_reader.h"

#include <string>
#include <vector>

namespace tico::calib {

class NpzArchive {
public:
  // Reads the zip directory of `path`. Throws tico::Error naming the file when it is no zip or
  // holds something other than .npy members.
  explicit NpzArchive(const std::string &path);

  // Member names without ".npy", in archive order.
  const std::vector<std::string> &names() const { return names_; }
  // The array stored as `name` + ".npy" (inflated when deflated).
  TensorPtr read(const std::string &name) const;
  // "'calib.npz:x.npy'", for messages.
  std::string label(const std::string &name) const;

private:
  std::string path_;
  pt2::ZipReader zip_;
  std::vector<std::string> names_;
};

} // namespace tico::calib
