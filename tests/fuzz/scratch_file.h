// A file in a private temporary directory that a fuzz target rewrites for each input, for the
// readers that map files (.npy, .npz); the directory is removed at exit.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace tico::fuzz {

// Writes `size` bytes of `data` into the scratch file named `name` and returns its path.
inline const std::string &writeScratch(const char *name, const uint8_t *data, size_t size) {
  static std::string dir, path;
  if (path.empty()) {
    dir = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : std::string("/tmp")) + "/tico-fuzz-XXXXXX";
    if (!::mkdtemp(dir.data()))
      std::abort();
    path = dir + "/" + name;
    std::atexit([] {
      std::remove(path.c_str());
      ::rmdir(dir.c_str());
    });
  }
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0)
    std::abort();
  return path;
}

} // namespace tico::fuzz
