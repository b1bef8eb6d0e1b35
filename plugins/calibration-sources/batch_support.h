// What every calibration source needs: natural ordering of batch names, the batch limit,
// matching named arrays to the graph's inputs and checking their element types, and the
// "PATH,key=value" options of a location.
#pragma once

#include <tico/quant/calibration.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tico::calib {

using TensorPtr = std::shared_ptr<const TensorData>;

// "batch_2" before "batch_10": runs of digits compare by value, the rest byte by byte.
bool naturalLess(const std::string &a, const std::string &b);

// Entries of `dir` (names only), naturally sorted, keeping those `keep` accepts. Hidden
// entries (".name") are skipped. Throws tico::Error naming the directory when it cannot be read.
std::vector<std::filesystem::path> listDirectory(const std::filesystem::path &dir,
                                                 bool (*keep)(const std::filesystem::directory_entry &));

bool isNpyFile(const std::filesystem::directory_entry &e);
bool isNpzFile(const std::filesystem::directory_entry &e);
bool isBatchDirectory(const std::filesystem::directory_entry &e); // a sub-directory holding .npy files

// Batches a source delivers out of `available`: at most request.batches.
std::size_t limitBatches(std::size_t available, const CalibrationRequest &request);

// "input 1 ('attention_mask')", as the host's own errors say it.
std::string inputLabel(const std::vector<CalibrationInput> &inputs, std::size_t index);

// `array` is what `where` (a file, an archive member) holds for input `index`: throws a
// tico::Error naming both when its element type is not the input's.
void checkDType(const TensorData &array, const std::vector<CalibrationInput> &inputs, std::size_t index,
                const std::string &where);

// One batch out of arrays named after the inputs: input i takes the array named like it, or
// named `i`, or named `alias_prefix` + i (npz's "arr_0"). Every array must be used once; missing
// and left-over names are an error naming `where`. `open(name)` reads an array and returns it
// with the label messages use for it (the file or archive member).
template <typename Open>
CalibrationBatch arraysToBatch(const std::vector<std::string> &names, const std::vector<CalibrationInput> &inputs,
                               const std::string &where, const std::string &alias_prefix, Open open);

// Element `i` of a `dtype` buffer at `base` set to `value`: floating types (float16 and
// bfloat16 rounded to nearest even) from a double, integer types and bool from an int64 (which
// must fit; bool is value != 0). Throws tico::Error for types a source cannot fill.
void storeFloat(DType dtype, std::byte *base, std::size_t i, double value);
void storeInteger(DType dtype, std::byte *base, std::size_t i, int64_t value);
// The largest value of an integer dtype (1 for bool).
uint64_t integerMax(DType dtype);

// Splits "PATH,key=value,key=value" into the path and options, recognising only the keys in
// `known` (so a path with a comma stays whole). Values are integers.
struct LocationOptions {
  std::string path;
  std::map<std::string, int64_t> options;
};
LocationOptions splitLocationOptions(const std::string &location, const std::vector<std::string> &known);

// Throws the error for an array name matching no input (with the names expected).
[[noreturn]] void failUnmatched(const std::string &where, const std::vector<std::string> &missing,
                                const std::vector<std::string> &unused, const std::vector<CalibrationInput> &inputs);

template <typename Open>
CalibrationBatch arraysToBatch(const std::vector<std::string> &names, const std::vector<CalibrationInput> &inputs,
                               const std::string &where, const std::string &alias_prefix, Open open) {
  std::vector<bool> used(names.size(), false);
  std::vector<std::size_t> chosen(inputs.size(), names.size());
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::vector<std::string> wanted = {inputs[i].name, std::to_string(i)};
    if (!alias_prefix.empty())
      wanted.push_back(alias_prefix + std::to_string(i));
    for (const std::string &w : wanted) {
      for (std::size_t n = 0; n < names.size() && chosen[i] == names.size(); ++n)
        if (!used[n] && names[n] == w) {
          chosen[i] = n;
          used[n] = true;
        }
    }
    if (chosen[i] == names.size())
      missing.push_back(inputs[i].name);
  }
  std::vector<std::string> unused;
  for (std::size_t n = 0; n < names.size(); ++n)
    if (!used[n])
      unused.push_back(names[n]);
  if (!missing.empty() || !unused.empty())
    failUnmatched(where, missing, unused, inputs);
  CalibrationBatch batch;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto [tensor, label] = open(names[chosen[i]]);
    checkDType(*tensor, inputs, i, label);
    batch.push_back(std::move(tensor));
  }
  return batch;
}

} // namespace tico::calib
