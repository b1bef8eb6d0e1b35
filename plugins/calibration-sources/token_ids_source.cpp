// `token-ids`: a text file of token-id sequences for language models.
//
//   prompts.txt             one sequence per line, integers separated by spaces and/or commas;
//   prompts.txt,pad_id=2    each line is one batch of shape [1, n] for the graph's first integer
//                           input. An input named like "attention_mask" gets ones (zeros over
//                           padding). A static sequence length pads (with pad_id, default 0) or
//                           truncates every line to it; a symbolic one takes the line's length.
#include "batch_support.h"
#include "sources.h"

#include <tico/support/error.h>
#include <tico/support/file.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <sstream>

namespace tico::calib {
namespace {

namespace fs = std::filesystem;

bool isMaskName(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name.find("mask") != std::string::npos;
}

// Token-id files are text read whole: a FIFO or device (token-ids:/dev/zero) is refused before
// it is opened, and a file larger than this is refused instead of filling memory.
constexpr std::size_t kMaxTokenFileBytes = std::size_t{256} << 20;

std::vector<std::vector<int64_t>> readSequences(const std::string &path) {
  std::istringstream in(readRegularFile(path, "token-id file", kMaxTokenFileBytes));
  std::vector<std::vector<int64_t>> lines;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    const std::string where = "'" + path + "' line " + std::to_string(number) + " (batch " +
                              std::to_string(lines.size()) + ")";
    std::vector<int64_t> ids;
    std::size_t pos = 0;
    while (true) {
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == ','))
        ++pos;
      if (pos == line.size())
        break;
      std::size_t end = pos;
      while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != ',')
        ++end;
      const std::string token = line.substr(pos, end - pos);
      int64_t id = 0;
      auto [stop, ec] = std::from_chars(token.data(), token.data() + token.size(), id);
      if (ec != std::errc() || stop != token.data() + token.size())
        throw Error(where + ": '" + token + "' is not an integer token id");
      if (id < 0)
        throw Error(where + ": token id " + token + " is negative");
      ids.push_back(id);
      pos = end;
    }
    if (ids.empty())
      throw Error(where + " is empty; every line is one sequence of token ids");
    lines.push_back(std::move(ids));
  }
  return lines;
}

class TokenIdsSource : public CalibrationSource {
public:
  explicit TokenIdsSource(const CalibrationRequest &request) : inputs_(request.inputs) {
    LocationOptions where = splitLocationOptions(request.location, {"pad_id"});
    path_ = where.path;
    pad_id_ = where.options.count("pad_id") ? where.options.at("pad_id") : 0;
    if (pad_id_ < 0)
      throw Error("token-ids: pad_id must not be negative, got " + std::to_string(pad_id_));
    // The file first: a wrong path is the likelier mistake than a model it does not suit.
    sequences_ = readSequences(path_);
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      const CalibrationInput &in = inputs_[i];
      if (isMaskName(in.name) && !mask_)
        mask_ = i;
      else if (isInteger(in.dtype) && !in.is_scalar && !ids_)
        ids_ = i;
      else
        throw Error("token-ids calibration data fills the first integer input (token ids) and an attention mask, "
                    "but the graph also has " + inputLabel(inputs_, i) + " (" +
                    std::string(torchDTypeName(in.dtype)) + "); give such models npy or npz batches");
    }
    if (!ids_)
      throw Error("token-ids calibration data needs an integer input for the token ids; the graph has none");
    const CalibrationInput &ids = inputs_[*ids_];
    if (ids.shape.empty() || ids.shape.size() > 2 || (ids.shape.size() == 2 && ids.shape[0] > 1))
      throw Error("token-ids calibration data makes [1, n] (or [n]) sequences, but " + inputLabel(inputs_, *ids_) +
                  " has shape [" + shapeText(ids.shape) + "]");
    if (ids.shape.back() >= 0)
      length_ = ids.shape.back();
    sequences_.resize(limitBatches(sequences_.size(), request));
  }

  std::size_t size() const override { return sequences_.size(); }

  CalibrationBatch batch(std::size_t index) override {
    const std::vector<int64_t> &line = sequences_.at(index);
    const auto n = static_cast<std::size_t>(length_ ? *length_ : static_cast<int64_t>(line.size()));
    const CalibrationInput &ids = inputs_[*ids_];
    std::vector<int64_t> sizes = ids.shape.size() == 2 ? std::vector<int64_t>{1, static_cast<int64_t>(n)}
                                                       : std::vector<int64_t>{static_cast<int64_t>(n)};
    std::vector<std::byte> id_bytes(n * elementSize(ids.dtype));
    for (std::size_t t = 0; t < n; ++t) {
      const int64_t id = t < line.size() ? line[t] : pad_id_;
      try {
        storeInteger(ids.dtype, id_bytes.data(), t, id);
      } catch (const Error &e) {
        throw Error("'" + path_ + "' batch " + std::to_string(index) + ", " + inputLabel(inputs_, *ids_) +
                    ": token id " + std::to_string(id) + " does not fit " + std::string(torchDTypeName(ids.dtype)));
      }
    }
    CalibrationBatch batch(inputs_.size());
    batch[*ids_] = std::make_shared<const TensorData>(TensorData::fromBytes(ids.dtype, sizes, std::move(id_bytes)));
    if (mask_) {
      const DType dt = inputs_[*mask_].dtype;
      std::vector<std::byte> mask_bytes(n * elementSize(dt));
      for (std::size_t t = 0; t < n; ++t)
        storeInteger(dt, mask_bytes.data(), t, t < line.size() ? 1 : 0);
      batch[*mask_] = std::make_shared<const TensorData>(TensorData::fromBytes(dt, sizes, std::move(mask_bytes)));
    }
    return batch;
  }

  std::string describe() const override {
    std::string text = "token-id file '" + path_ + "' (" + std::to_string(sequences_.size()) + " batch" +
                       (sequences_.size() == 1 ? "" : "es") + " for input '" + inputs_[*ids_].name + "'";
    if (length_)
      text += ", each padded with " + std::to_string(pad_id_) + " or truncated to " + std::to_string(*length_) +
              " tokens";
    if (mask_)
      text += ", attention mask '" + inputs_[*mask_].name + "'";
    return text + ")";
  }

private:
  static std::string shapeText(const std::vector<int64_t> &shape) {
    std::string s;
    for (int64_t d : shape)
      s += (s.empty() ? "" : ", ") + (d < 0 ? std::string("?") : std::to_string(d));
    return s;
  }

  std::string path_;
  std::vector<CalibrationInput> inputs_;
  std::optional<std::size_t> ids_, mask_;
  std::optional<int64_t> length_; // the static sequence length, when there is one
  int64_t pad_id_ = 0;
  std::vector<std::vector<int64_t>> sequences_;
};

bool acceptsTokenFile(const std::string &location) {
  try {
    const fs::path path = splitLocationOptions(location, {"pad_id"}).path;
    const std::string ext = path.extension().string();
    return ext == ".txt" || ext == ".ids" || ext == ".tokens";
  } catch (const Error &) {
    return false;
  }
}

} // namespace

CalibrationSourceSpec tokenIdsSource() {
  return {"token-ids",
          "a text file (.txt/.ids/.tokens) of token ids, one sequence per line = one [1, n] batch; "
          "PATH,pad_id=N pads static lengths",
          acceptsTokenFile, [](const CalibrationRequest &request) { return std::make_unique<TokenIdsSource>(request); }};
}

} // namespace tico::calib
