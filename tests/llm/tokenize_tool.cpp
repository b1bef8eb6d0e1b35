// tokenize_tool: the C++ tokenizer on the command line, for tests/llm/check_tokenizer.py (which
// compares it with Python's `tokenizers`) and for measuring it.
//
//   tokenize_tool TOKENIZER_JSON encode [--no-special]     stdin: one text per line, as a JSON
//       string ("a\nb") or, if the line does not start with '"', the raw line; stdout: the ids,
//       space-separated, one line per input line
//   tokenize_tool TOKENIZER_JSON decode [--skip-special]   stdin: ids, space-separated, one
//       sequence per line; stdout: the text as a JSON string, one per line
//   tokenize_tool TOKENIZER_JSON decode-stream [--skip-special]   like decode, but through a
//       StreamDecoder fed id by id; stdout: a JSON array of the pieces step() returned, then
//       the piece finish() returned
//   tokenize_tool TOKENIZER_JSON info      vocabulary size, BOS/EOS/PAD and special ids (JSON)
//   tokenize_tool TOKENIZER_JSON bench [SECONDS]   stdin: one text; encodes it repeatedly for
//       about SECONDS (default 2) and reports load time and tokens per second (JSON)
//
// Errors (tico::Error) go to stderr with exit code 1; a failure on one input line is reported as
// the line "error: ..." so that the other lines keep their positions.
#include "tico/llm/tokenizer.h"
#include "tico/support/error.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using tico::llm::TokenId;
using tico::llm::Tokenizer;

std::string jsonString(const std::string &text) {
  // Invalid UTF-8 cannot come out of the tokenizer, but never let the tool itself throw on it.
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<TokenId> parseIds(const std::string &line) {
  std::vector<TokenId> ids;
  std::istringstream in(line);
  long long id;
  while (in >> id)
    ids.push_back(static_cast<TokenId>(id));
  return ids;
}

int usage() {
  std::cerr << "usage: tokenize_tool TOKENIZER_JSON encode [--no-special] | decode [--skip-special] | "
               "decode-stream [--skip-special] | info | bench [SECONDS]\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    return usage();
  std::string mode = argv[2];
  std::string option = argc > 3 ? argv[3] : "";
  try {
    auto load_start = std::chrono::steady_clock::now();
    Tokenizer tokenizer = Tokenizer::fromFile(argv[1]);
    double load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
    std::string line;
    if (mode == "encode") {
      bool add_special = option != "--no-special";
      while (std::getline(std::cin, line)) {
        try {
          std::string text = !line.empty() && line[0] == '"' ? nlohmann::json::parse(line).get<std::string>() : line;
          std::vector<TokenId> ids = tokenizer.encode(text, add_special);
          for (std::size_t i = 0; i < ids.size(); ++i)
            std::cout << (i ? " " : "") << ids[i];
          std::cout << "\n";
        } catch (const std::exception &e) {
          std::cout << "error: " << e.what() << "\n";
        }
      }
      return 0;
    }
    if (mode == "decode" || mode == "decode-stream") {
      bool skip = option == "--skip-special";
      tico::llm::StreamDecoder stream = tokenizer.streamDecoder(skip);
      while (std::getline(std::cin, line)) {
        std::vector<TokenId> ids = parseIds(line);
        if (mode == "decode") {
          std::cout << jsonString(tokenizer.decode(ids, skip)) << "\n";
          continue;
        }
        nlohmann::json pieces = nlohmann::json::array();
        for (TokenId id : ids)
          pieces.push_back(stream.step(id));
        pieces.push_back(stream.finish());
        std::cout << pieces.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      }
      return 0;
    }
    if (mode == "info") {
      nlohmann::json info;
      info["vocab_size"] = tokenizer.vocabSize();
      info["bos"] = tokenizer.bosId() ? nlohmann::json(*tokenizer.bosId()) : nlohmann::json();
      info["eos"] = tokenizer.eosId() ? nlohmann::json(*tokenizer.eosId()) : nlohmann::json();
      info["pad"] = tokenizer.padId() ? nlohmann::json(*tokenizer.padId()) : nlohmann::json();
      info["special_ids"] = tokenizer.specialIds();
      info["load_seconds"] = load_seconds;
      std::cout << info.dump() << "\n";
      return 0;
    }
    if (mode == "bench") {
      double budget = option.empty() ? 2.0 : std::stod(option);
      std::stringstream all;
      all << std::cin.rdbuf();
      std::string text = all.str();
      std::size_t tokens = 0, runs = 0;
      auto start = std::chrono::steady_clock::now();
      double elapsed = 0;
      do {
        tokens += tokenizer.encode(text, false).size();
        ++runs;
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      } while (elapsed < budget);
      nlohmann::json result;
      result["load_seconds"] = load_seconds;
      result["text_bytes"] = text.size();
      result["tokens_per_run"] = tokens / runs;
      result["runs"] = runs;
      result["tokens_per_second"] = static_cast<double>(tokens) / elapsed;
      result["megabytes_per_second"] = static_cast<double>(text.size() * runs) / elapsed / 1e6;
      std::cout << result.dump() << "\n";
      return 0;
    }
    return usage();
  } catch (const tico::Error &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
