// Text <-> token ids for on-device generation, from a Hugging Face `tokenizer.json`.
//
// `tico-circle generate` must turn a prompt into the ids the exported model was trained on and
// turn generated ids back into text, using the tokenizer embedded in the Circle file's metadata.
// The ids only mean something if they are exactly the ones Python's `tokenizers` library
// produces, so this is a re-implementation of that library's pipeline for the models LLMs use
// (a BPE model), not an approximation of it:
//
//   added tokens are cut out of the raw text -> normalizer -> pre-tokenizer -> BPE -> post-processor
//
// and, for decoding, the same decoder chain applied to the tokens' strings. Anything in the file
// that this implementation does not reproduce exactly is refused when loading with a tico::Error
// naming the component (for example "unsupported pre_tokenizer type 'Whitespace'"), so a loaded
// tokenizer never silently produces different ids.
//
// Supported (everything else is refused):
//   model            BPE (byte_fallback, unk_token, fuse_unk, ignore_merges,
//                    continuing_subword_prefix, end_of_word_suffix; merges in both JSON forms)
//   normalizer       Replace, Prepend, NFC, NFD, NFKC, NFKD, Sequence
//   pre_tokenizer    Split (String or Regex pattern, every behavior, invert), Metaspace,
//                    ByteLevel, Digits, Sequence
//   post_processor   TemplateProcessing (single sequence), ByteLevel, Sequence
//   decoder          Replace, ByteFallback, Fuse, Strip, Metaspace, ByteLevel, BPEDecoder, Sequence
//   added_tokens     special or not, lstrip, rstrip, single_word, normalized
// Regex patterns run on ICU (see core/llm/src/tokenizer_pattern.h for the one known difference
// with the library's Oniguruma: characters assigned after ICU's Unicode version).
//
// Not reproduced on purpose: `truncation` and `padding` (encode() behaves as if both were off,
// which is what generation needs), offsets, pairs of sequences and BPE dropout (dropout > 0 is
// refused: its output is random).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tico::llm {

// Circle models take token ids as int32 tensors, so ids are int32 here too.
using TokenId = std::int32_t;

class Tokenizer;

// Decodes ids one at a time while a model generates them.
//
// Decoding token by token cannot simply decode each id on its own: a character can be split over
// several byte tokens (`<0xE2><0x82><0xAC>` is "€"), the first token loses its leading "▁"/space,
// and some decoders strip text at the end. step() therefore returns only the text that can no
// longer change, and finish() returns what was held back, so that
//
//   step(id1) + step(id2) + ... + step(idN) + finish() == tokenizer.decode({id1, ..., idN})
//
// holds exactly, for any ids. Text is held back only while it can still change: an incomplete
// UTF-8 character, a run of byte-fallback tokens (the whole run becomes U+FFFD if any byte in it
// turns out to be invalid, so it is released when the run ends), or characters a `Strip` decoder
// could still remove at the end. A few decoder orders no tokenizer uses (a `ByteLevel`,
// `ByteFallback` or `BPEDecoder` decoder placed after `Fuse`) hold everything until finish().
//
// The decoder refers to the Tokenizer it came from, which must outlive it. One StreamDecoder
// serves one sequence at a time (it is not thread-safe; make one per generation).
class StreamDecoder {
public:
  StreamDecoder(StreamDecoder &&) noexcept;
  StreamDecoder &operator=(StreamDecoder &&) noexcept;
  ~StreamDecoder();

  // Adds one id; returns the text that became final (often empty).
  std::string step(TokenId id);
  // Ends the sequence and returns the text still held back. The decoder can be reused
  // afterwards for a new sequence.
  std::string finish();

private:
  friend class Tokenizer;
  struct State;
  explicit StreamDecoder(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

class Tokenizer {
public:
  // Parses the contents of a tokenizer.json (what a Circle file's metadata carries).
  // Throws tico::Error on malformed JSON and on any component this implementation cannot
  // reproduce exactly.
  static Tokenizer fromJson(std::string_view json);
  // Reads and parses a tokenizer.json file.
  static Tokenizer fromFile(const std::string &path);

  Tokenizer(Tokenizer &&) noexcept;
  Tokenizer &operator=(Tokenizer &&) noexcept;
  ~Tokenizer();

  // Token ids of `text` (UTF-8), as `tokenizers.Tokenizer.encode(text, add_special_tokens).ids`.
  // add_special_tokens lets the post-processor add its tokens (BOS for most LLMs). Special tokens
  // written in the text (e.g. "<start_of_turn>") are always recognised, as in the library.
  // Throws tico::Error if `text` is not valid UTF-8. Thread-safe.
  std::vector<TokenId> encode(std::string_view text, bool add_special_tokens = true) const;

  // Text of `ids`, as `tokenizers.Tokenizer.decode(ids, skip_special_tokens)`. Ids that are not
  // in the vocabulary are skipped, as the library does. Thread-safe.
  std::string decode(std::span<const TokenId> ids, bool skip_special_tokens = false) const;

  // A decoder for ids arriving one by one (see StreamDecoder).
  StreamDecoder streamDecoder(bool skip_special_tokens = false) const;

  // 1 + the largest id of the model vocabulary and of the added tokens: the number of rows the
  // model's embedding table needs. (The library's get_vocab_size() counts distinct tokens
  // instead; the two differ only when ids have gaps.)
  std::size_t vocabSize() const;
  // Id of a token string, looking at added tokens first and then at the model vocabulary.
  std::optional<TokenId> tokenToId(std::string_view token) const;
  // String of an id as the decoder sees it (added tokens first, then the model vocabulary).
  std::optional<std::string> idToToken(TokenId id) const;

  // Ids of the added tokens marked special, ascending: what skip_special_tokens removes (except,
  // as in the library, a special token with "normalized": true whose normalized form differs
  // from its content, which decode() does not recognise as special).
  const std::vector<TokenId> &specialIds() const;
  bool isSpecial(TokenId id) const;

  // Beginning/end-of-sequence and padding ids, when known. tokenizer.json has no field for them:
  // BOS/EOS come from the post-processor's template (the special token before / after the
  // sequence), otherwise from a special added token with a conventional name ("<bos>", "<s>",
  // "<|begin_of_text|>"; "<eos>", "</s>", "<|end_of_text|>", "<|endoftext|>"; "<pad>", "<|pad|>",
  // "[PAD]"). Callers that know better (tokenizer_config.json, generation_config.json) set them.
  std::optional<TokenId> bosId() const;
  std::optional<TokenId> eosId() const;
  std::optional<TokenId> padId() const;
  void setBosId(std::optional<TokenId> id);
  void setEosId(std::optional<TokenId> id);
  void setPadId(std::optional<TokenId> id);

  struct Impl;

private:
  friend class StreamDecoder;
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace tico::llm
