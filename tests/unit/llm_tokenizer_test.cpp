// tico::llm::Tokenizer (core/llm): tokenizer.json encode/decode as Hugging Face `tokenizers`.
//
// The expected ids and texts come from the Python library, never from this code: the small
// tokenizers in tests/llm/data/ were trained offline and their expectations written by
// tests/llm/make_tokenizer_fixtures.py (tokenizers 0.23.3). Each family the C++ side supports has
// one (Gemma/Llama-2/Metaspace SentencePiece-style BPE with byte fallback, GPT-2/Llama-3/Qwen2
// byte-level BPE, prefix/suffix BPE, no decoder). The comparison on thousands of strings and on
// Gemma 3's real tokenizer is tests/llm/check_tokenizer.py.
#include "tico/llm/tokenizer.h"
#include "tico/support/error.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace tico::llm {
namespace {

std::filesystem::path dataDir() {
#ifdef TICO_SOURCE_DIR
  return std::filesystem::path(TICO_SOURCE_DIR) / "tests" / "llm" / "data";
#else
  return std::filesystem::path(__FILE__).parent_path().parent_path() / "llm" / "data";
#endif
}

std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("missing test data " + path.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const tico::Error &e) {
    return e.what();
  }
  return "(no error)";
}

const std::vector<std::string> kFixtures = {"deepseek_like", "gemma",          "gpt2",       "gpt2_prefix",
                                            "llama2",        "llama3",         "metaspace",  "metaspace_nfkc",
                                            "no_decoder",    "qwen2",          "strip_both", "wordpiece_like"};

class LlmTokenizerFixture : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    tokenizer_ = std::make_unique<Tokenizer>(Tokenizer::fromFile((dataDir() / (GetParam() + ".json")).string()));
    expected_ = nlohmann::json::parse(readFile(dataDir() / (GetParam() + ".expected.json")));
  }
  std::unique_ptr<Tokenizer> tokenizer_;
  nlohmann::json expected_;
};

TEST_P(LlmTokenizerFixture, EncodeGivesTheLibrarysIds) {
  ASSERT_GE(expected_["encode"].size(), 50u);
  for (const auto &c : expected_["encode"]) {
    std::string text = c["text"];
    bool add_special = c["add_special_tokens"];
    EXPECT_EQ(tokenizer_->encode(text, add_special), c["ids"].get<std::vector<TokenId>>())
        << "text: " << nlohmann::json(text).dump() << " add_special_tokens=" << add_special;
  }
}

TEST_P(LlmTokenizerFixture, DecodeGivesTheLibrarysText) {
  ASSERT_GE(expected_["decode"].size(), 50u);
  for (const auto &c : expected_["decode"]) {
    auto ids = c["ids"].get<std::vector<TokenId>>();
    bool skip = c["skip_special_tokens"];
    EXPECT_EQ(tokenizer_->decode(ids, skip), c["text"].get<std::string>())
        << "ids: " << c["ids"].dump() << " skip_special_tokens=" << skip;
  }
}

TEST_P(LlmTokenizerFixture, StreamedPiecesConcatenateToTheLibrarysText) {
  // One decoder for all sequences: finish() must also reset it.
  for (bool skip : {false, true}) {
    StreamDecoder stream = tokenizer_->streamDecoder(skip);
    for (const auto &c : expected_["decode"]) {
      if (c["skip_special_tokens"] != skip)
        continue;
      std::string streamed;
      for (TokenId id : c["ids"].get<std::vector<TokenId>>())
        streamed += stream.step(id);
      streamed += stream.finish();
      EXPECT_EQ(streamed, c["text"].get<std::string>())
          << "ids: " << c["ids"].dump() << " skip_special_tokens=" << skip;
    }
  }
}

TEST_P(LlmTokenizerFixture, StreamingMatchesBatchDecodingOnRandomIds) {
  std::mt19937 random(42);
  std::uniform_int_distribution<TokenId> any_id(0, static_cast<TokenId>(tokenizer_->vocabSize()) + 3);
  std::uniform_int_distribution<int> length(1, 24);
  StreamDecoder stream = tokenizer_->streamDecoder();
  for (int round = 0; round < 300; ++round) {
    std::vector<TokenId> ids(static_cast<std::size_t>(length(random)));
    for (TokenId &id : ids)
      id = any_id(random);
    std::string streamed;
    for (TokenId id : ids)
      streamed += stream.step(id);
    streamed += stream.finish();
    ASSERT_EQ(streamed, tokenizer_->decode(ids)) << "ids: " << nlohmann::json(ids).dump();
  }
}

TEST_P(LlmTokenizerFixture, AccessorsAgreeWithTheLibrary) {
  EXPECT_EQ(tokenizer_->vocabSize(), expected_["vocab_size"].get<std::size_t>());
  EXPECT_EQ(tokenizer_->specialIds(), expected_["special_ids"].get<std::vector<TokenId>>());
  if (!expected_["template_bos"].is_null()) {
    EXPECT_EQ(tokenizer_->bosId(), expected_["template_bos"].get<TokenId>());
  }
  for (TokenId id : tokenizer_->specialIds())
    EXPECT_TRUE(tokenizer_->isSpecial(id));
  for (const auto &entry : expected_["added_tokens"]) {
    auto id = entry[0].get<TokenId>();
    std::optional<std::string> token = tokenizer_->idToToken(id);
    ASSERT_TRUE(token.has_value()) << id;
    EXPECT_EQ(*token, entry[1].get<std::string>());
    std::optional<TokenId> back = tokenizer_->tokenToId(*token);
    if (entry[2].is_null())
      EXPECT_FALSE(back.has_value()) << *token; // a normalized token's decoded form is not a token
    else
      EXPECT_EQ(back, entry[2].get<TokenId>()) << *token;
  }
  EXPECT_FALSE(tokenizer_->idToToken(-1).has_value());
  EXPECT_FALSE(tokenizer_->idToToken(static_cast<TokenId>(tokenizer_->vocabSize())).has_value());
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LlmTokenizerFixture, ::testing::ValuesIn(kFixtures),
                         [](const ::testing::TestParamInfo<std::string> &param_info) { return param_info.param; });

// --- Behaviour worth pinning on its own -------------------------------------------------------

Tokenizer fixture(const std::string &name) { return Tokenizer::fromFile((dataDir() / (name + ".json")).string()); }

TEST(LlmTokenizer, ByteFallbackRunIsReleasedWhenItEnds) {
  // "€" is three byte tokens; the run can still turn into U+FFFDs until a non-byte token shows
  // that it is over, so nothing comes out before.
  Tokenizer tokenizer = fixture("gemma");
  std::vector<TokenId> bytes;
  for (const char *name : {"<0xE2>", "<0x82>", "<0xAC>"}) {
    std::optional<TokenId> id = tokenizer.tokenToId(name);
    ASSERT_TRUE(id.has_value()) << name;
    bytes.push_back(*id);
  }
  std::optional<TokenId> word = tokenizer.tokenToId("▁is▁");
  ASSERT_TRUE(word.has_value());
  StreamDecoder stream = tokenizer.streamDecoder();
  EXPECT_EQ(stream.step(bytes[0]), "");
  EXPECT_EQ(stream.step(bytes[1]), "");
  EXPECT_EQ(stream.step(bytes[2]), "");
  EXPECT_EQ(stream.step(*word), "\xE2\x82\xAC is "); // tokenizers: decode([646, 550, 592, 298]) == "€ is "
  EXPECT_EQ(stream.finish(), "");
  // An incomplete run decodes to one U+FFFD per byte, as the library's ByteFallback decoder.
  EXPECT_EQ(stream.step(bytes[0]), "");
  EXPECT_EQ(stream.step(bytes[1]), "");
  EXPECT_EQ(stream.finish(), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(tokenizer.decode(std::vector<TokenId>{bytes[0], bytes[1]}), "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(LlmTokenizer, ByteLevelStreamHoldsOnlyAnIncompleteCharacter) {
  Tokenizer tokenizer = fixture("gpt2");
  // "é" is two bytes; the byte-level tokens "Ã" and "©" stand for 0xC3 and 0xA9.
  std::optional<TokenId> first = tokenizer.tokenToId("Ã");
  std::optional<TokenId> second = tokenizer.tokenToId("©");
  std::optional<TokenId> letter = tokenizer.tokenToId("a");
  ASSERT_TRUE(first && second && letter);
  StreamDecoder stream = tokenizer.streamDecoder();
  EXPECT_EQ(stream.step(*letter), "a");
  EXPECT_EQ(stream.step(*first), "");
  EXPECT_EQ(stream.step(*second), "\xC3\xA9");
  EXPECT_EQ(stream.step(*first), "");
  EXPECT_EQ(stream.finish(), "\xEF\xBF\xBD");
}

TEST(LlmTokenizer, LeadingSpaceIsStrippedOnceWhileStreaming) {
  // Llama-2 style decoder (Replace "▁" -> " ", ByteFallback, Fuse, Strip one leading space):
  // with no byte tokens and nothing to strip at the end, every step releases exactly what the
  // ids so far decode to (decode() itself is checked against the library above), so the first
  // space is dropped once and never held.
  Tokenizer tokenizer = fixture("llama2");
  std::vector<TokenId> ids = tokenizer.encode("Hello world. Hello", false);
  ASSERT_GE(ids.size(), 4u);
  StreamDecoder stream = tokenizer.streamDecoder();
  std::string streamed;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    streamed += stream.step(ids[i]);
    EXPECT_EQ(streamed, tokenizer.decode(std::span<const TokenId>(ids.data(), i + 1))) << "after " << i + 1 << " ids";
  }
  EXPECT_EQ(stream.finish(), "");
  EXPECT_EQ(streamed, "Hello world. Hello");
}

TEST(LlmTokenizer, EncodingIsThreadSafe) {
  Tokenizer tokenizer = fixture("gpt2");
  std::string text = "The quick brown fox jumps over the lazy dog, again and again: 1234567890.";
  std::vector<TokenId> reference = tokenizer.encode(text);
  std::vector<std::vector<TokenId>> results(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < results.size(); ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i)
        results[t] = tokenizer.encode(text + std::to_string(i % 7));
    });
  for (std::thread &thread : threads)
    thread.join();
  for (std::size_t t = 0; t < results.size(); ++t)
    EXPECT_EQ(results[t], tokenizer.encode(text + std::to_string(199 % 7))) << "thread " << t;
  EXPECT_EQ(tokenizer.encode(text), reference);
}

TEST(LlmTokenizer, CallerCanOverrideSpecialIds) {
  Tokenizer tokenizer = fixture("qwen2");
  EXPECT_FALSE(tokenizer.bosId().has_value()); // no template, no conventional BOS name
  EXPECT_EQ(tokenizer.eosId(), tokenizer.tokenToId("<|endoftext|>"));
  tokenizer.setEosId(tokenizer.tokenToId("<|im_end|>"));
  tokenizer.setPadId(7);
  EXPECT_EQ(tokenizer.eosId(), tokenizer.tokenToId("<|im_end|>"));
  EXPECT_EQ(tokenizer.padId(), 7);
}

// --- Errors -----------------------------------------------------------------------------------

// A minimal valid tokenizer.json with one component replaced.
std::string tokenizerJson(const std::string &field, const std::string &value) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
    "normalizer": null, "pre_tokenizer": null, "post_processor": null, "decoder": null,
    "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
              "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
              "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}})");
  if (!field.empty()) {
    nlohmann::json *target = &j;
    std::string path = field;
    for (std::size_t dot; (dot = path.find('.')) != std::string::npos; path = path.substr(dot + 1))
      target = &(*target)[path.substr(0, dot)];
    (*target)[path] = nlohmann::json::parse(value);
  }
  return j.dump();
}

// Expected values from tokenizers 0.23.3 on the same JSON.
TEST(LlmTokenizerErrors, MinimalTokenizerWorks) {
  Tokenizer tokenizer = Tokenizer::fromJson(tokenizerJson("", ""));
  EXPECT_EQ(tokenizer.encode("abba"), (std::vector<TokenId>{2, 1, 0}));
  EXPECT_EQ(tokenizer.decode(std::vector<TokenId>{2, 1, 0}), "ab b a"); // no decoder: joined by spaces
  // The legacy merge form "left right", with its "#version" line, and a model without "type".
  Tokenizer legacy = Tokenizer::fromJson(tokenizerJson("model.merges", R"(["#version: 0.2", "a b"])"));
  EXPECT_EQ(legacy.encode("abba"), (std::vector<TokenId>{2, 1, 0}));
  nlohmann::json untyped = nlohmann::json::parse(tokenizerJson("", ""));
  untyped["model"].erase("type");
  EXPECT_EQ(Tokenizer::fromJson(untyped.dump()).encode("abba"), (std::vector<TokenId>{2, 1, 0}));
}

TEST(LlmTokenizerErrors, UnsupportedComponentsAreNamed) {
  struct Case {
    std::string field, value, message;
  };
  const std::vector<Case> cases = {
      {"model.type", R"j("WordPiece")j", "unsupported model type 'WordPiece'"},
      {"model.dropout", "0.1", "dropout"},
      {"normalizer", R"j({"type": "Lowercase"})j", "unsupported normalizer type 'Lowercase'"},
      {"normalizer", R"j({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "StripAccents"}]})j",
       "unsupported normalizer type 'StripAccents'"},
      {"pre_tokenizer", R"j({"type": "Whitespace"})j", "unsupported pre_tokenizer type 'Whitespace'"},
      {"pre_tokenizer", R"j({"type": "Sequence", "pretokenizers": [{"type": "Digits"}, {"type": "Punctuation"}]})j",
       "unsupported pre_tokenizer type 'Punctuation'"},
      {"pre_tokenizer", R"j({"type": "Split", "pattern": {"Regex": "\\w+|\\s"}, "behavior": "Isolated",
                           "invert": false})j",
       "\\w"},
      {"pre_tokenizer", R"j({"type": "Split", "pattern": {"Regex": "(?m:.)"}, "behavior": "Isolated",
                           "invert": false})j",
       "inline flag (?m)"},
      {"pre_tokenizer", R"j({"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated",
                           "invert": false})j",
       "cannot be compiled"},
      {"pre_tokenizer", R"j({"type": "Split", "pattern": {"String": "x"}, "behavior": "Sideways", "invert": false})j",
       "unknown behavior 'Sideways'"},
      {"pre_tokenizer",
       R"j({"type": "Metaspace", "replacement": "_", "add_prefix_space": false, "prepend_scheme": "always"})j",
       "add_prefix_space does not match"},
      {"pre_tokenizer", R"j({"type": "Metaspace", "replacement": "ab"})j", "must be a single character"},
      {"post_processor", R"j({"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0]})j",
       "unsupported post_processor type 'RobertaProcessing'"},
      {"decoder", R"j({"type": "WordPiece", "prefix": "##"})j", "unsupported decoder type 'WordPiece'"},
      {"decoder", R"j({"vocab_size": 3})j", "decoder has no \"type\" field"},
      {"model.merges", R"j([["a", "c"]])j", "merge 0 uses 'c', which is not in the vocabulary"},
      {"model.merges", R"j(["a b c"])j", "is not two tokens separated by one space"},
      {"version", R"j("2.0")j", "unknown tokenizer version '2.0'"},
  };
  for (const Case &c : cases) {
    std::string message = errorOf([&] { Tokenizer::fromJson(tokenizerJson(c.field, c.value)); });
    EXPECT_NE(message.find(c.message), std::string::npos) << c.field << " = " << c.value << "\n  got: " << message;
  }
}

TEST(LlmTokenizerErrors, MalformedJsonGivesTheByteOffset) {
  EXPECT_EQ(errorOf([] { Tokenizer::fromJson(R"({"model": {"type": "BPE",}})"); }),
            "tokenizer.json: invalid JSON at byte 25: expected a string key");
  EXPECT_NE(errorOf([] { Tokenizer::fromJson("{\"a\": \"\xff\"}"); }).find("invalid UTF-8 in string"),
            std::string::npos);
  EXPECT_NE(errorOf([] { Tokenizer::fromJson(R"({"a": "\ud800"})"); }).find("lone high surrogate"), std::string::npos);
  EXPECT_NE(errorOf([] { Tokenizer::fromJson(std::string(1000, '[')); }).find("nesting deeper than"),
            std::string::npos);
  EXPECT_EQ(errorOf([] { Tokenizer::fromJson(""); }),
            "tokenizer.json: invalid JSON at byte 0: unexpected end of input");
  EXPECT_EQ(errorOf([] { Tokenizer::fromJson("{}"); }), "tokenizer.json: no \"model\"");
  EXPECT_NE(errorOf([] { Tokenizer::fromFile("/nonexistent/tokenizer.json"); }).find("cannot open tokenizer file"),
            std::string::npos);
}

TEST(LlmTokenizerErrors, InvalidUtf8TextIsRefused) {
  Tokenizer tokenizer = Tokenizer::fromJson(tokenizerJson("", ""));
  EXPECT_EQ(errorOf([&] { tokenizer.encode("ab\xc3"); }), "tokenizer: the text to encode is not valid UTF-8 (byte 2)");
}

TEST(LlmTokenizerErrors, MissingUnkTokenIsReportedWhenNeeded) {
  Tokenizer tokenizer = Tokenizer::fromJson(tokenizerJson("model.unk_token", R"("<unk>")"));
  EXPECT_EQ(tokenizer.encode("ab"), (std::vector<TokenId>{2}));
  EXPECT_EQ(errorOf([&] { tokenizer.encode("abc"); }), "tokenizer: unk_token '<unk>' is not in the vocabulary");
}

} // namespace
} // namespace tico::llm
