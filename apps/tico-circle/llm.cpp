// tico-circle generate / eval: an LLM exported by tico_native.llm.export (docs/llm.md), run on
// a runtime plugin (default: the built-in interpreter) through tico-llm's session.
//
//   generate: a prompt (text with the embedded tokenizer, or token ids) -> new tokens, streamed
//             to stdout as they come; prefill and decode speed on stderr.
//   eval:     perplexity over a token-id or text file (non-overlapping windows), or accuracy on a
//             JSON-lines file of multiple-choice questions scored by log-likelihood.
#include "tool.h"

#include "tico/circle/verify.h"
#include "tico/llm/session.h"
#include "tico/llm/tokenizer.h"
#include "tico/plugin/loader.h"
#include "tico/plugin/registry.h"
#include "tico/support/error.h"
#include "tico/support/file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

namespace tico::circle_tool {
namespace {

struct LlmRequest {
  std::string model, runtime = "builtin";
  std::vector<std::string> plugins;
  uint32_t threads = 0;
  bool json = false;
};

// The model, its runtime and (when embedded) its tokenizer, kept alive together.
struct LoadedLlm {
  PluginSet plugins; // outlives everything the runtime creates
  Registry registry;
  std::unique_ptr<llm::LlmSession> session;
  std::optional<llm::Tokenizer> tokenizer;
};

std::unique_ptr<LoadedLlm> loadLlm(const LlmRequest &request) {
  if (request.threads > 0) // read by the interpreter when it first splits work
    ::setenv("TICO_INTERPRETER_THREADS", std::to_string(request.threads).c_str(), 1);
  auto model = std::make_shared<CircleModel>(loadModel(request.model));
  checkCircleModel(*model, "'" + request.model + "'");
  auto loaded = std::make_unique<LoadedLlm>();
  loaded->plugins.discover(loaded->registry);
  for (const auto &p : request.plugins)
    loaded->plugins.load(p, loaded->registry);
  const auto &spec = loaded->registry.requireRuntime(request.runtime).spec;
  const auto runtime = spec.create(Options::resolve("runtime '" + spec.name + "'", spec.options, {}));
  std::shared_ptr<PreparedModel> prepared = runtime->prepare(model);
  loaded->session = std::make_unique<llm::LlmSession>(model, prepared);
  if (auto json = llm::embeddedTokenizer(*model))
    loaded->tokenizer.emplace(llm::Tokenizer::fromJson(*json));
  return loaded;
}

// Token ids written as integers separated by blanks, commas or newlines.
std::vector<int32_t> parseIds(const std::string &text, const std::string &what) {
  std::vector<int32_t> ids;
  std::size_t i = 0;
  while (i < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[i])) || text[i] == ',') {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != ',')
      ++end;
    const std::string word = text.substr(i, end - i);
    char *stop = nullptr;
    errno = 0;
    const long long value = std::strtoll(word.c_str(), &stop, 10);
    if (*stop != '\0' || errno != 0 || value < 0 || value > std::numeric_limits<int32_t>::max())
      throw Error(what + ": '" + word + "' is not a token id");
    ids.push_back(static_cast<int32_t>(value));
    i = end;
  }
  return ids;
}

const llm::Tokenizer &requireTokenizer(const LoadedLlm &loaded, const std::string &why) {
  if (!loaded.tokenizer)
    throw Error(why + " needs the tokenizer, and the model has none embedded (export it with a tokenizer, or give "
                      "token ids)");
  return *loaded.tokenizer;
}

double rate(double count, double seconds) {
  return seconds > 0 ? count / seconds : 0;
}

// ---- generate -----------------------------------------------------------------------------------

struct GenerateRequest : LlmRequest {
  std::string prompt, prompt_ids, prompt_file;
  int64_t max_new_tokens = 64;
  double temperature = 0, top_p = 1.0;
  int64_t top_k = 0;
  uint64_t seed = 0;
  bool ids_out = false, ignore_eos = false;
};

int runGenerate(const GenerateRequest &request) {
  const int given = !request.prompt.empty() + !request.prompt_ids.empty() + !request.prompt_file.empty();
  if (given != 1)
    throw Error("give exactly one of --prompt TEXT, --prompt-ids IDS, --prompt-file FILE");
  auto loaded = loadLlm(request);
  const llm::LlmSpec &spec = loaded->session->spec();
  std::vector<int32_t> prompt;
  bool text_mode = false;
  if (!request.prompt_ids.empty()) {
    prompt = parseIds(request.prompt_ids, "--prompt-ids");
  } else {
    const std::string text = !request.prompt.empty()
                                 ? request.prompt
                                 : readRegularFile(request.prompt_file, "prompt file", 64u << 20);
    prompt = requireTokenizer(*loaded, "a text prompt").encode(text, /*add_special_tokens=*/true);
    // A tokenizer without a template that adds BOS, for a model trained with one.
    if (spec.add_bos && spec.bos_id && (prompt.empty() || prompt.front() != *spec.bos_id))
      prompt.insert(prompt.begin(), *spec.bos_id);
    text_mode = !request.ids_out;
  }
  llm::GenerationOptions options;
  options.max_new_tokens = request.max_new_tokens;
  options.sampling = {request.temperature, request.top_k, request.top_p, request.seed};
  options.stop_at_eos = !request.ignore_eos;
  std::optional<llm::StreamDecoder> stream;
  if (text_mode)
    stream.emplace(loaded->tokenizer->streamDecoder(/*skip_special_tokens=*/true));
  bool first = true;
  const llm::GenerationResult result = llm::generate(*loaded->session, prompt, options, [&](int32_t token) {
    if (stream)
      std::cout << stream->step(token);
    else
      std::cout << (first ? "" : " ") << token;
    first = false;
    std::cout << std::flush;
    return true;
  });
  if (stream)
    std::cout << stream->finish();
  std::cout << "\n";
  const llm::CallTimes &times = loaded->session->times();
  const double prefill_tps = rate(static_cast<double>(result.prompt_tokens), result.prefill_seconds);
  const double decode_tps = rate(static_cast<double>(result.decode_steps), result.decode_seconds);
  // The median step: the steady rate, without the first step's one-time work (kernels derive
  // their state from the decode subgraph's constants on its first run).
  std::vector<double> steps = result.decode_step_seconds;
  std::sort(steps.begin(), steps.end());
  const double median_step = steps.empty() ? 0.0 : steps[steps.size() / 2];
  if (request.json) {
    nlohmann::json j{{"prompt_tokens", result.prompt_tokens},
                     {"new_tokens", result.tokens},
                     {"stop_reason", result.stop_reason},
                     {"prefill_seconds", result.prefill_seconds},
                     {"prefill_calls", times.prefill_calls},
                     {"prefill_tokens_per_second", prefill_tps},
                     {"decode_steps", result.decode_steps},
                     {"decode_seconds", result.decode_seconds},
                     {"decode_tokens_per_second", decode_tps},
                     {"decode_step_seconds", result.decode_step_seconds},
                     {"decode_median_step_seconds", median_step},
                     {"decode_median_tokens_per_second", rate(1.0, median_step)}};
    std::cerr << j.dump() << "\n";
  } else {
    std::cerr << std::fixed << std::setprecision(2) << "tico-circle generate: prompt " << result.prompt_tokens
              << " tokens, prefill " << result.prefill_seconds << " s (" << prefill_tps << " tokens/s, "
              << times.prefill_calls << " prefill + " << (times.decode_calls - result.decode_steps)
              << " decode calls); " << result.tokens.size() << " new tokens, decode " << result.decode_seconds
              << " s (" << decode_tps << " tokens/s); stop: " << result.stop_reason << "\n";
  }
  return kOk;
}

// ---- eval -----------------------------------------------------------------------------------------

struct EvalRequest : LlmRequest {
  std::string perplexity, choices;
  bool text = false, no_bos = false;
  int64_t window = 0, max_windows = 0, limit = 0;
};

std::vector<int32_t> tokensOf(const LoadedLlm &loaded, const std::string &path, bool text) {
  const std::string content = readRegularFile(path, "evaluation file", std::size_t{1} << 30);
  if (!text)
    return parseIds(content, path);
  return requireTokenizer(loaded, "--text").encode(content, /*add_special_tokens=*/false);
}

int runPerplexity(const EvalRequest &request, LoadedLlm &loaded) {
  const std::vector<int32_t> tokens = tokensOf(loaded, request.perplexity, request.text);
  llm::PerplexityOptions options;
  options.window = request.window;
  options.max_windows = request.max_windows;
  options.bos = !request.no_bos;
  const auto start = std::chrono::steady_clock::now();
  const llm::PerplexityResult result = llm::perplexity(*loaded.session, tokens, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (request.json) {
    std::cout << nlohmann::json{{"perplexity", result.perplexity()},
                                {"nll", result.nll},
                                {"predictions", result.predictions},
                                {"windows", result.windows},
                                {"tokens", tokens.size()},
                                {"seconds", seconds},
                                {"tokens_per_second", rate(static_cast<double>(result.predictions), seconds)}}
                     .dump()
              << "\n";
  } else {
    std::cout << std::setprecision(8) << "perplexity " << result.perplexity() << " over " << result.predictions
              << " predictions in " << result.windows << " windows (" << std::setprecision(3)
              << rate(static_cast<double>(result.predictions), seconds) << " tokens/s)\n";
  }
  return kOk;
}

// One question per line: {"context": text or [ids], "choices": [text or [ids], ...], "answer": i}.
int runChoices(const EvalRequest &request, LoadedLlm &loaded) {
  const std::string content = readRegularFile(request.choices, "multiple-choice file", std::size_t{1} << 30);
  std::istringstream lines(content);
  std::string line;
  int64_t questions = 0, correct = 0, correct_norm = 0, line_no = 0;
  auto ids = [&](const nlohmann::json &value, bool continuation) -> std::vector<int32_t> {
    if (value.is_array())
      return value.get<std::vector<int32_t>>();
    return requireTokenizer(loaded, "a text question").encode(value.get<std::string>() , false);
    (void)continuation;
  };
  while (std::getline(lines, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    if (request.limit > 0 && questions >= request.limit)
      break;
    const std::string where = request.choices + ":" + std::to_string(line_no);
    nlohmann::json q;
    try {
      q = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception &e) {
      throw Error(where + ": not JSON: " + e.what());
    }
    if (!q.contains("context") || !q.contains("choices") || !q.contains("answer") || !q["choices"].is_array() ||
        q["choices"].empty())
      throw Error(where + ": a question needs \"context\", \"choices\" (non-empty list) and \"answer\"");
    const std::vector<int32_t> context = ids(q["context"], false);
    const auto answer = q["answer"].get<int64_t>();
    if (answer < 0 || answer >= static_cast<int64_t>(q["choices"].size()))
      throw Error(where + ": answer " + std::to_string(answer) + " is not a choice index");
    double best = -std::numeric_limits<double>::infinity(), best_norm = best;
    int64_t pick = -1, pick_norm = -1;
    for (std::size_t c = 0; c < q["choices"].size(); ++c) {
      const std::vector<int32_t> continuation = ids(q["choices"][c], true);
      if (continuation.empty())
        throw Error(where + ": choice " + std::to_string(c) + " is empty");
      const double ll = llm::logLikelihood(*loaded.session, context, continuation);
      const double norm = ll / static_cast<double>(continuation.size());
      if (ll > best) {
        best = ll;
        pick = static_cast<int64_t>(c);
      }
      if (norm > best_norm) {
        best_norm = norm;
        pick_norm = static_cast<int64_t>(c);
      }
    }
    ++questions;
    correct += pick == answer;
    correct_norm += pick_norm == answer;
  }
  if (questions == 0)
    throw Error(request.choices + " holds no question");
  const double accuracy = static_cast<double>(correct) / static_cast<double>(questions);
  const double accuracy_norm = static_cast<double>(correct_norm) / static_cast<double>(questions);
  if (request.json)
    std::cout << nlohmann::json{{"questions", questions}, {"accuracy", accuracy}, {"accuracy_per_token", accuracy_norm}}.dump()
              << "\n";
  else
    std::cout << "accuracy " << accuracy << " (" << correct << " of " << questions << "), per-token normalised "
              << accuracy_norm << "\n";
  return kOk;
}

int runEval(const EvalRequest &request) {
  if (request.perplexity.empty() == request.choices.empty())
    throw Error("give one of --perplexity FILE or --choices FILE");
  auto loaded = loadLlm(request);
  return request.perplexity.empty() ? runChoices(request, *loaded) : runPerplexity(request, *loaded);
}

void addCommon(CLI::App &app, LlmRequest &request) {
  app.add_option("model", request.model, "Circle file exported by tico_native.llm.export")->required();
  app.add_option("--runtime", request.runtime, "the runtime plugin that runs the model (default: builtin)");
  app.add_option("--plugin", request.plugins, "load this plugin in addition to the discovered ones")
      ->allow_extra_args(false);
  app.add_option("--threads", request.threads, "interpreter threads (default: TICO_INTERPRETER_THREADS or the CPU's)");
  app.add_flag("--json", request.json, "machine-readable figures");
}

} // namespace

Action addGenerate(CLI::App &app) {
  auto request = std::make_shared<GenerateRequest>();
  addCommon(app, *request);
  app.add_option("--prompt", request->prompt, "prompt text (needs the embedded tokenizer)");
  app.add_option("--prompt-ids", request->prompt_ids, "prompt as token ids, e.g. '2 9259 1902'");
  app.add_option("--prompt-file", request->prompt_file, "prompt text from a file");
  app.add_option("-n,--max-new-tokens", request->max_new_tokens, "tokens to generate (default 64)")
      ->check(CLI::PositiveNumber);
  app.add_option("--temperature", request->temperature, "0 (default): greedy; > 0: sample")->check(CLI::NonNegativeNumber);
  app.add_option("--top-k", request->top_k, "sample among the k most likely tokens (0: all)")->check(CLI::NonNegativeNumber);
  app.add_option("--top-p", request->top_p, "sample among the smallest set reaching this probability")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--seed", request->seed, "seed of the sampler (default 0)");
  app.add_flag("--ids", request->ids_out, "print token ids instead of text");
  app.add_flag("--ignore-eos", request->ignore_eos, "go on after an end-of-sequence token");
  return [request] { return runGenerate(*request); };
}

Action addEval(CLI::App &app) {
  auto request = std::make_shared<EvalRequest>();
  addCommon(app, *request);
  app.add_option("--perplexity", request->perplexity, "token-id file (or text with --text): perplexity");
  app.add_option("--choices", request->choices,
                 "JSON lines {\"context\", \"choices\", \"answer\"}: multiple-choice accuracy by log-likelihood");
  app.add_flag("--text", request->text, "the --perplexity file is text, tokenized with the embedded tokenizer");
  app.add_option("--window", request->window, "tokens per perplexity window (default: the prefill length)");
  app.add_option("--max-windows", request->max_windows, "score at most this many windows");
  app.add_option("--limit", request->limit, "score at most this many questions");
  app.add_flag("--no-bos", request->no_bos, "do not start windows with the beginning-of-sequence token");
  return [request] { return runEval(*request); };
}

} // namespace tico::circle_tool
