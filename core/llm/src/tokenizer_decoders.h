// Decoders: turn the strings of the decoded ids back into text.
//
// A tokenizer.json decoder is a chain (Sequence) of steps, each mapping a list of token strings
// to a new list; the text is the concatenation of the final list. decode() applies the chain to
// all tokens at once, exactly as the library. DecoderStream applies the same chain token by token
// (see StreamDecoder in the public header for its contract); it is a separate implementation so
// that the tests comparing the two check something.
#pragma once

#include "tokenizer_json.h"
#include "tokenizer_pattern.h"
#include "tokenizer_pre_tokenizers.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tico::llm::detail {

// The byte of a ByteFallback token "<0xNN>" ("<0x+N>" too, as Rust's u8::from_str_radix reads
// it), or nullopt for any other token.
std::optional<unsigned char> byteTokenValue(std::string_view token);

struct DecoderStep {
  enum class Kind { Replace, ByteFallback, Fuse, Strip, Metaspace, ByteLevel, BpeSuffix };
  Kind kind;
  std::shared_ptr<const Pattern> pattern; // Replace
  std::string text;                       // Replace: content; BpeSuffix: suffix
  char32_t character = 0;                 // Strip: content; Metaspace: replacement
  std::size_t strip_start = 0;            // Strip
  std::size_t strip_stop = 0;             // Strip
  PrependScheme prepend_scheme = PrependScheme::Always; // Metaspace
};

class DecoderStream;

class Decoder {
public:
  // Reads tokenizer.json's "decoder"; null or absent means none (tokens joined by spaces).
  // Supported: Replace, ByteFallback, Fuse, Strip, Metaspace, ByteLevel, BPEDecoder, Sequence;
  // any other type is refused.
  static Decoder load(const JsonValue *config);

  std::string decode(std::vector<std::string> tokens) const;
  std::unique_ptr<DecoderStream> stream() const;

private:
  bool present_ = false;
  std::vector<DecoderStep> steps_; // Sequence flattened
};

// Incremental form of Decoder::decode.
class DecoderStream {
public:
  virtual ~DecoderStream() = default;
  // Feeds the string of one more token.
  virtual void token(std::string_view text) = 0;
  // Ends the sequence (and resets the stream for a new one).
  virtual void finish() = 0;
  // Text produced since the last call.
  virtual std::string take() = 0;
};

std::unique_ptr<DecoderStream> makeDecoderStream(bool present, const std::vector<DecoderStep> &steps);

} // namespace tico::llm::detail
