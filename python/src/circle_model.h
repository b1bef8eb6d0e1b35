// A Circle model held as Python bytes: its interface, a summary, and runs on the built-in
// interpreter (libtico-interpreter).
#pragma once

#include "tico/circle/model.h"
#include "tico/interpreter/interpreter.h"
#include "tico/llm/session.h"
#include "tico/llm/tokenizer.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace tico::python {

// The tico dtype of an array's element type (none for types tico does not know).
std::optional<DType> dtypeOf(nanobind::dlpack::dtype t);

// (name, dtype name as in torch without the prefix, shape with -1 for dynamic dims)
// (name, dtype, shape) and (key, subgraph, input names, output names): names as decodedName gives them.
using TensorInfo = std::tuple<nanobind::str, std::string, std::vector<int64_t>>;
using SignatureInfo = std::tuple<nanobind::str, uint32_t, nanobind::list, nanobind::list>;

class NativeCircleModel {
public:
  // Reads the Circle file in `data` (a bytes object, viewed in place and kept alive); `name`
  // stands for it in messages. Raises CircleFormatError for anything that is not a valid model.
  NativeCircleModel(nanobind::bytes data, std::string name);
  // Reads a Circle file, mapped (weights are not copied into memory).
  static std::unique_ptr<NativeCircleModel> fromFile(const std::string &path);

  std::vector<TensorInfo> inputs(uint32_t subgraph = 0) const;
  std::vector<TensorInfo> outputs(uint32_t subgraph = 0) const;
  // (key, subgraph index, input names, output names) of every SignatureDef.
  std::vector<SignatureInfo> signatures() const;
  uint64_t fileBytes() const { return file_bytes_; }

  // Runs a subgraph (default 0). Inputs in its input order (C-contiguous CPU arrays or tensors);
  // outputs are fresh arrays (numpy, or torch tensors with as_torch). Raises InterpreterError.
  nanobind::list run(const std::vector<nanobind::ndarray<nanobind::ro, nanobind::device::cpu, nanobind::c_contig>> &inputs,
                     bool as_torch, uint32_t subgraph = 0);

  // ---- LLMs exported by tico_native.llm.export (docs/llm.md) ----
  // The "tico.llm.v1" metadata's JSON text, or None.
  nanobind::object llmSpec() const;
  // The embedded tokenizer.json text, or None.
  nanobind::object tokenizerJson() const;
  // Resets the session and generates; `on_token(id) -> bool` (may be None) sees tokens as they
  // come. Returns (new tokens, stats dict). Raises InterpreterError / LlmError.
  nanobind::tuple generate(const std::vector<int32_t> &prompt, int64_t max_new_tokens, double temperature,
                           int64_t top_k, double top_p, uint64_t seed, bool stop_at_eos,
                           const std::vector<int32_t> &stop_ids, nanobind::object on_token);
  nanobind::dict perplexity(const std::vector<int32_t> &tokens, int64_t window, int64_t max_windows, bool bos);
  double logLikelihood(const std::vector<int32_t> &context, const std::vector<int32_t> &continuation);

  // The text (or JSON text) `tico-circle inspect` prints for this model.
  nanobind::str inspect(bool tensors, bool operators, bool buffers, bool verify, bool as_json) const;

  // The JSON text of the incremental-strategies manifest (Metadata "incremental.manifest.v1"),
  // or None when the model has none.
  nanobind::object incrementalManifest() const;

private:
  NativeCircleModel(std::shared_ptr<const CircleModel> model, std::string name, std::size_t file_bytes);
  const CircleInterpreter &interpreter();
  llm::LlmSession &session();

  std::string name_;
  std::size_t file_bytes_ = 0;
  std::shared_ptr<const CircleModel> model_;
  std::unique_ptr<CircleInterpreter> interpreter_; // built on the first run
  std::unique_ptr<llm::LlmSession> session_; // built on the first LLM call
  std::mutex run_mutex_; // the interpreter runs one call at a time
};

// A tokenizer.json, read by tico's tokenizer (the one tico-circle generate uses).
class NativeTokenizer {
public:
  explicit NativeTokenizer(const std::string &json);
  std::vector<int32_t> encode(const std::string &text, bool add_special_tokens) const;
  std::string decode(const std::vector<int32_t> &ids, bool skip_special_tokens) const;
  std::size_t vocabSize() const { return tokenizer_.vocabSize(); }
  nanobind::object bosId() const;
  nanobind::object eosId() const;

private:
  llm::Tokenizer tokenizer_;
};

} // namespace tico::python
