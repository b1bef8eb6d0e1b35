#include "circle_model.h"

#include "tico/pipeline/incremental.h"

#include "errors.h"
#include "python_keepalive.h"
#include "summary.h"

#include "tico/circle/reader.h"
#include "tico/circle/verify.h"
#include "tico/support/error.h"

#include <nanobind/stl/function.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>

namespace nb = nanobind;

namespace tico::python {
namespace {

using nb::dlpack::dtype_code;

struct DTypeCode {
  DType dtype;
  dtype_code code;
  uint8_t bits;
};
constexpr DTypeCode kDTypes[] = {
    {DType::Bool, dtype_code::Bool, 8},       {DType::UInt8, dtype_code::UInt, 8},
    {DType::Int8, dtype_code::Int, 8},        {DType::Int16, dtype_code::Int, 16},
    {DType::Int32, dtype_code::Int, 32},      {DType::Int64, dtype_code::Int, 64},
    {DType::UInt16, dtype_code::UInt, 16},    {DType::UInt32, dtype_code::UInt, 32},
    {DType::UInt64, dtype_code::UInt, 64},    {DType::Float16, dtype_code::Float, 16},
    {DType::BFloat16, dtype_code::Bfloat, 16}, {DType::Float32, dtype_code::Float, 32},
    {DType::Float64, dtype_code::Float, 64},  {DType::Complex64, dtype_code::Complex, 64},
    {DType::Complex128, dtype_code::Complex, 128},
};

nb::dlpack::dtype toDlpack(DType dtype) {
  for (const auto &entry : kDTypes)
    if (entry.dtype == dtype)
      return nb::dlpack::dtype{static_cast<uint8_t>(entry.code), entry.bits, 1};
  throw Error("the interpreter returned a tensor of type " + std::string(dtypeName(dtype)) +
              ", which has no array type");
}

// "float32", "int64", "bool": torch's names without the "torch." prefix.
std::string shortTorchName(DType dtype) {
  std::string name(torchDTypeName(dtype));
  return name.rfind("torch.", 0) == 0 ? name.substr(6) : name;
}

// A subgraph's inputs or outputs as declared (shape_signature when present: -1 = dynamic).
std::vector<TensorInfo> interfaceOf(const CircleModel &model, uint32_t subgraph,
                                    const std::vector<int32_t> CircleSubGraph::*which) {
  std::vector<TensorInfo> out;
  if (model.subgraphs.empty() && subgraph == 0)
    return out;
  if (subgraph >= model.subgraphs.size())
    throwPython("InterpreterError", "subgraph " + std::to_string(subgraph) + " out of range (the model has " +
                                        std::to_string(model.subgraphs.size()) + ")");
  const CircleSubGraph &graph = model.subgraphs[subgraph];
  for (int32_t index : graph.*which) {
    const CircleTensor &tensor = graph.tensors.at(static_cast<std::size_t>(index));
    const auto &shape = tensor.shape_signature.empty() ? tensor.shape : tensor.shape_signature;
    out.emplace_back(decodedName(tensor.name), shortTorchName(fromCircleType(tensor.type)),
                     std::vector<int64_t>(shape.begin(), shape.end()));
  }
  return out;
}

// A fresh array of the output's shape and type, owning a copy of its elements. Outputs may be
// views of an input or of a constant inside the model bytes, which must not be handed out as
// writable arrays.
template <typename Framework> nb::object freshArray(const TensorData &out) {
  const std::size_t bytes = out.nbytes();
  auto *copy = new std::byte[bytes == 0 ? 1 : bytes];
  if (bytes != 0)
    out.copyContiguousTo(copy);
  nb::capsule owner(copy, [](void *p) noexcept { delete[] static_cast<std::byte *>(p); });
  std::vector<size_t> shape(out.sizes.begin(), out.sizes.end());
  nb::ndarray<Framework> array(copy, shape.size(), shape.data(), owner, nullptr, toDlpack(out.dtype));
  return nb::cast(array);
}

} // namespace

std::optional<DType> dtypeOf(nb::dlpack::dtype t) {
  for (const auto &entry : kDTypes)
    if (static_cast<uint8_t>(entry.code) == t.code && entry.bits == t.bits && t.lanes == 1)
      return entry.dtype;
  return std::nullopt;
}

NativeCircleModel::NativeCircleModel(nb::bytes data, std::string name) : name_(std::move(name)) {
  const auto *bytes = reinterpret_cast<const std::byte *>(data.c_str());
  file_bytes_ = data.size();
  auto storage = Storage::fromExternal(bytes, file_bytes_, holdUnderGil(nb::bytes(data)));
  try {
    model_ = std::make_shared<const CircleModel>(readCircleBytes(std::move(storage), name_));
  } catch (const Error &e) {
    throwPython("CircleFormatError", e.what());
  }
}

NativeCircleModel::NativeCircleModel(std::shared_ptr<const CircleModel> model, std::string name, std::size_t file_bytes)
    : name_(std::move(name)), file_bytes_(file_bytes), model_(std::move(model)) {}

std::unique_ptr<NativeCircleModel> NativeCircleModel::fromFile(const std::string &path) {
  requireNoNul(path, "circle_path");
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  try {
    return std::unique_ptr<NativeCircleModel>(
        new NativeCircleModel(std::make_shared<const CircleModel>(readCircleFile(path)), path, ec ? 0 : size));
  } catch (const Error &e) {
    throwPython("CircleFormatError", e.what());
  }
}

std::vector<TensorInfo> NativeCircleModel::inputs(uint32_t subgraph) const {
  return interfaceOf(*model_, subgraph, &CircleSubGraph::inputs);
}

std::vector<TensorInfo> NativeCircleModel::outputs(uint32_t subgraph) const {
  return interfaceOf(*model_, subgraph, &CircleSubGraph::outputs);
}

std::vector<SignatureInfo> NativeCircleModel::signatures() const {
  std::vector<SignatureInfo> out;
  for (const CircleSignature &s : model_->signatures) {
    nb::list ins, outs;
    for (const auto &m : s.inputs)
      ins.append(decodedName(m.name));
    for (const auto &m : s.outputs)
      outs.append(decodedName(m.name));
    out.emplace_back(decodedName(s.key), s.subgraph_index, ins, outs);
  }
  return out;
}

const CircleInterpreter &NativeCircleModel::interpreter() {
  if (!interpreter_) {
    // The interpreter relies on a consistent model; report a broken one with the verifier's
    // findings, as tico-circle run does.
    checkCircleModel(*model_, "'" + name_ + "'");
    interpreter_ = std::make_unique<CircleInterpreter>(model_);
  }
  return *interpreter_;
}

nb::list NativeCircleModel::run(const std::vector<nb::ndarray<nb::ro, nb::device::cpu, nb::c_contig>> &inputs, bool as_torch,
                                uint32_t subgraph) {
  std::vector<std::shared_ptr<const TensorData>> tensors;
  tensors.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto &array = inputs[i];
    const std::optional<DType> dtype = dtypeOf(array.dtype());
    if (!dtype)
      throwPython("InterpreterError", "input " + std::to_string(i) + " has an element type the interpreter does not know");
    auto data = std::make_shared<TensorData>();
    data->dtype = *dtype;
    for (std::size_t d = 0; d < array.ndim(); ++d)
      data->sizes.push_back(static_cast<int64_t>(array.shape(d)));
    data->strides = TensorData::contiguousStrides(data->sizes);
    data->storage = Storage::fromExternal(static_cast<const std::byte *>(array.data()), array.nbytes(),
                                          holdUnderGil(array));
    tensors.push_back(std::move(data));
  }

  std::vector<std::shared_ptr<const TensorData>> results;
  std::optional<std::string> failure;
  {
    nb::gil_scoped_release released;
    std::lock_guard lock(run_mutex_);
    try {
      if (subgraph >= model_->subgraphs.size())
        throw Error("subgraph " + std::to_string(subgraph) + " out of range (the model has " +
                    std::to_string(model_->subgraphs.size()) + ")");
      results = interpreter().run(tensors, subgraph);
    } catch (const Error &e) {
      failure = e.what();
    } catch (const std::exception &e) {
      failure = std::string("internal error: ") + e.what();
    }
  }
  // The inputs' owners are Python references: dropped here, with the GIL held and the lock free.
  tensors.clear();
  if (failure)
    throwPython("InterpreterError", *failure);
  nb::list out;
  for (const auto &result : results)
    out.append(as_torch ? freshArray<nb::pytorch>(*result) : freshArray<nb::numpy>(*result));
  return out;
}

nb::str NativeCircleModel::inspect(bool tensors, bool operators, bool buffers, bool verify, bool as_json) const {
  circle_tool::SummaryOptions options;
  options.tensors = tensors;
  options.operators = operators;
  options.buffers = buffers;
  options.verify = verify;
  const auto doc = circle_tool::summarizeModel(*model_, name_, file_bytes_, options);
  // Names are the file's bytes: JSON shows invalid UTF-8 as U+FFFD (as tico-circle inspect
  // --json does), the text form as \xNN.
  if (as_json)
    return decodedText(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  std::ostringstream text;
  circle_tool::printSummary(doc, text);
  return decodedText(text.str());
}

nb::object NativeCircleModel::incrementalManifest() const {
  if (auto text = tico::incrementalManifest(*model_))
    return decodedText(*text);
  return nb::none();
}

// ---- LLMs ------------------------------------------------------------------------------------------

namespace {

// The interpreter behind the runtime ABI, so tico-llm's session runs on it.
class InterpreterRuntime : public PreparedModel {
public:
  explicit InterpreterRuntime(const CircleInterpreter &interpreter) : interpreter_(interpreter) {}
  std::vector<CircleTensorInfo> inputs(uint32_t subgraph) const override { return interpreter_.inputs(subgraph); }
  std::vector<CircleTensorInfo> outputs(uint32_t subgraph) const override { return interpreter_.outputs(subgraph); }
  std::vector<std::shared_ptr<const TensorData>> run(const std::vector<std::shared_ptr<const TensorData>> &inputs,
                                                     uint32_t subgraph) override {
    return interpreter_.run(inputs, subgraph);
  }

private:
  const CircleInterpreter &interpreter_;
};

// Runs `body` without the GIL and under the model's run lock; tico errors become Python ones.
template <class Body> void runReleased(std::mutex &mutex, Body &&body) {
  std::optional<std::string> failure;
  {
    nb::gil_scoped_release released;
    std::lock_guard lock(mutex);
    try {
      body();
    } catch (const nb::python_error &) {
      throw; // raised by a Python callback: re-raised as is
    } catch (const Error &e) {
      failure = e.what();
    } catch (const std::exception &e) {
      failure = std::string("internal error: ") + e.what();
    }
  }
  if (failure)
    throwPython("InterpreterError", *failure);
}

} // namespace

llm::LlmSession &NativeCircleModel::session() {
  if (!session_)
    session_ = std::make_unique<llm::LlmSession>(model_, std::make_shared<InterpreterRuntime>(interpreter()));
  return *session_;
}

nb::object NativeCircleModel::llmSpec() const {
  for (const auto &[key, index] : model_->metadata)
    if (key == llm::kSpecMetadata)
      return decodedText(llm::LlmSpec::metadataText(*model_));
  return nb::none();
}

nb::object NativeCircleModel::tokenizerJson() const {
  if (auto json = llm::embeddedTokenizer(*model_))
    return decodedText(*json);
  return nb::none();
}

nb::tuple NativeCircleModel::generate(const std::vector<int32_t> &prompt, int64_t max_new_tokens, double temperature,
                                      int64_t top_k, double top_p, uint64_t seed, bool stop_at_eos,
                                      const std::vector<int32_t> &stop_ids, nb::object on_token) {
  llm::GenerationOptions options;
  options.max_new_tokens = max_new_tokens;
  options.sampling = {temperature, top_k, top_p, seed};
  options.stop_at_eos = stop_at_eos;
  options.stop_ids = stop_ids;
  llm::GenerationResult result;
  runReleased(run_mutex_, [&] {
    std::function<bool(int32_t)> callback;
    if (!on_token.is_none())
      callback = [&](int32_t token) {
        nb::gil_scoped_acquire gil;
        nb::object keep = on_token(token);
        return keep.is_none() || nb::cast<bool>(keep);
      };
    result = llm::generate(session(), prompt, options, callback);
  });
  const llm::CallTimes &times = session_->times();
  nb::dict stats;
  stats["prompt_tokens"] = result.prompt_tokens;
  stats["stop_reason"] = result.stop_reason;
  stats["prefill_seconds"] = result.prefill_seconds;
  stats["prefill_calls"] = times.prefill_calls;
  stats["decode_steps"] = result.decode_steps;
  stats["decode_seconds"] = result.decode_seconds;
  stats["decode_step_seconds"] = nb::cast(result.decode_step_seconds);
  return nb::make_tuple(nb::cast(result.tokens), stats);
}

nb::dict NativeCircleModel::perplexity(const std::vector<int32_t> &tokens, int64_t window, int64_t max_windows, bool bos) {
  llm::PerplexityOptions options;
  options.window = window;
  options.max_windows = max_windows;
  options.bos = bos;
  llm::PerplexityResult result;
  double seconds = 0;
  runReleased(run_mutex_, [&] {
    const auto start = std::chrono::steady_clock::now();
    result = llm::perplexity(session(), tokens, options);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  nb::dict out;
  out["perplexity"] = result.perplexity();
  out["nll"] = result.nll;
  out["predictions"] = result.predictions;
  out["windows"] = result.windows;
  out["seconds"] = seconds;
  return out;
}

double NativeCircleModel::logLikelihood(const std::vector<int32_t> &context, const std::vector<int32_t> &continuation) {
  double value = 0;
  runReleased(run_mutex_, [&] { value = llm::logLikelihood(session(), context, continuation); });
  return value;
}

NativeTokenizer::NativeTokenizer(const std::string &json)
    : tokenizer_([&] {
        try {
          return llm::Tokenizer::fromJson(json);
        } catch (const Error &e) {
          throwPython("LlmError", std::string("the tokenizer cannot be read by tico's tokenizer: ") + e.what());
        }
      }()) {}

std::vector<int32_t> NativeTokenizer::encode(const std::string &text, bool add_special_tokens) const {
  try {
    return tokenizer_.encode(text, add_special_tokens);
  } catch (const Error &e) {
    throwPython("LlmError", e.what());
  }
}

std::string NativeTokenizer::decode(const std::vector<int32_t> &ids, bool skip_special_tokens) const {
  return tokenizer_.decode(ids, skip_special_tokens);
}

nb::object NativeTokenizer::bosId() const {
  auto id = tokenizer_.bosId();
  return id ? nb::cast(*id) : nb::none();
}

nb::object NativeTokenizer::eosId() const {
  auto id = tokenizer_.eosId();
  return id ? nb::cast(*id) : nb::none();
}

} // namespace tico::python
