// Token-by-token form of the decoder chain (see tokenizer_decoders.h).
//
// Each decoder step becomes a stage that receives the tokens of the previous step as events:
// begin() a token, text() of it (in one or more chunks), end() of it, and finish() at the end of
// the sequence. Steps that join all tokens into one (Fuse, ByteLevel) open a single output token
// and end it only at finish(), so the steps after them see one growing token, as in the batch
// chain. Every stage passes text on as soon as later input can no longer change it, and only
// ever cuts text between characters.
#include "tokenizer_byte_level.h"
#include "tokenizer_decoders.h"
#include "tokenizer_utf8.h"

namespace tico::llm::detail {
namespace {

class Stage {
public:
  virtual ~Stage() = default;
  virtual void begin() = 0;
  virtual void text(std::string_view chunk) = 0;
  virtual void end() = 0;
  virtual void finish() = 0;
  Stage *next = nullptr;
};

// The end of the chain: collects the text.
class Sink final : public Stage {
public:
  void begin() override {}
  void text(std::string_view chunk) override { output.append(chunk); }
  void end() override {}
  void finish() override {}
  std::string output;
};

// Without a decoder the library joins the tokens with spaces.
class JoinWithSpaces final : public Stage {
public:
  void begin() override {
    if (count_++ > 0)
      next->text(" ");
    next->begin();
  }
  void text(std::string_view chunk) override { next->text(chunk); }
  void end() override { next->end(); }
  void finish() override {
    count_ = 0;
    next->finish();
  }

private:
  std::size_t count_ = 0;
};

// Replace with a literal pattern: a match cannot span tokens, so only the end of the current
// token that could still become a match is held back.
class ReplaceLiteral final : public Stage {
public:
  ReplaceLiteral(std::string pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void begin() override {
    held_.clear();
    next->begin();
  }
  void text(std::string_view chunk) override {
    held_.append(chunk);
    std::string out;
    std::size_t from = 0;
    for (std::size_t at = held_.find(pattern_); at != std::string::npos; at = held_.find(pattern_, from)) {
      out.append(held_, from, at - from);
      out += content_;
      from = at + pattern_.size();
    }
    // Keep the longest tail that is a proper prefix of the pattern.
    std::size_t keep = std::min(pattern_.size() - 1, held_.size() - from);
    while (keep > 0 && held_.compare(held_.size() - keep, keep, pattern_, 0, keep) != 0)
      --keep;
    out.append(held_, from, held_.size() - from - keep);
    held_.erase(0, held_.size() - keep);
    if (!out.empty())
      next->text(out);
  }
  void end() override {
    if (!held_.empty())
      next->text(held_);
    held_.clear();
    next->end();
  }
  void finish() override { next->finish(); }

private:
  std::string pattern_;
  std::string content_;
  std::string held_;
};

// Replace with a regex: whether the end of a token matches depends on what follows, so each
// token is replaced once complete.
class ReplaceRegex final : public Stage {
public:
  explicit ReplaceRegex(const DecoderStep &step) : step_(step) {}
  void begin() override {
    token_.clear();
    next->begin();
  }
  void text(std::string_view chunk) override { token_.append(chunk); }
  void end() override {
    std::string out;
    for (const PatternSpan &span : step_.pattern->findMatches(token_))
      out += span.is_match ? step_.text : token_.substr(span.begin, span.end - span.begin);
    next->text(out);
    token_.clear();
    next->end();
  }
  void finish() override { next->finish(); }

private:
  const DecoderStep &step_;
  std::string token_;
};

// ByteFallback: "<0xNN>" tokens accumulate into a run that is released as one token when a
// non-byte token (or the end) arrives; the whole run becomes U+FFFDs if it is not valid UTF-8,
// so nothing of it can be released earlier.
class ByteFallbackStage final : public Stage {
public:
  void begin() override {
    token_.clear();
    plain_ = false;
  }
  void text(std::string_view chunk) override {
    if (plain_) {
      next->text(chunk);
      return;
    }
    token_.append(chunk);
    if (!couldBeByteToken(token_))
      becomePlain();
  }
  void end() override {
    if (!plain_) {
      if (const std::optional<unsigned char> byte = byteTokenValue(token_)) {
        bytes_.push_back(static_cast<char>(*byte));
        token_.clear();
        return;
      }
      becomePlain();
    }
    next->end();
  }
  void finish() override {
    flushBytes();
    next->finish();
  }

private:
  // Whether `token` is a prefix of some "<0xNN>" token.
  static bool couldBeByteToken(const std::string &token) {
    static constexpr std::string_view kPrefix = "<0x";
    if (token.size() > 6)
      return false;
    for (std::size_t i = 0; i < token.size(); ++i) {
      char c = token[i];
      bool ok;
      if (i < 3)
        ok = c == kPrefix[i];
      else if (i == 3)
        ok = c == '+' || hexDigitValue(c) >= 0;
      else if (i == 4)
        ok = hexDigitValue(c) >= 0;
      else
        ok = c == '>';
      if (!ok)
        return false;
    }
    return token.size() < 5 || token[3] != '+' || hexDigitValue(token[4]) >= 0;
  }
  void becomePlain() {
    plain_ = true;
    flushBytes();
    next->begin();
    if (!token_.empty())
      next->text(token_);
    token_.clear();
  }
  void flushBytes() {
    if (bytes_.empty())
      return;
    if (findInvalidUtf8(bytes_) == std::string_view::npos) {
      next->begin();
      next->text(bytes_);
      next->end();
    } else {
      for (std::size_t i = 0; i < bytes_.size(); ++i) {
        next->begin();
        next->text(kReplacementCharacter);
        next->end();
      }
    }
    bytes_.clear();
  }

  std::string token_;
  bool plain_ = false;
  std::string bytes_;
};

// Fuse: all tokens become one.
class FuseStage final : public Stage {
public:
  void begin() override {
    if (!open_) {
      open_ = true;
      next->begin();
    }
  }
  void text(std::string_view chunk) override { next->text(chunk); }
  void end() override {}
  void finish() override {
    if (!open_)
      next->begin(); // the library fuses no tokens into one empty token
    next->end();
    open_ = false;
    next->finish();
  }

private:
  bool open_ = false;
};

// Strip: drops up to `start` leading and `stop` trailing copies of a character from each token.
// A trailing run of that character is held back until something else follows it.
class StripStage final : public Stage {
public:
  explicit StripStage(const DecoderStep &step)
      : character_(step.character), start_(step.strip_start), stop_(step.strip_stop) {
    appendUtf8(utf8_, character_);
  }
  void begin() override {
    leading_removed_ = 0;
    leading_ = start_ > 0;
    held_ = 0;
    next->begin();
  }
  void text(std::string_view chunk) override {
    std::string out;
    for (std::size_t i = 0; i < chunk.size();) {
      std::size_t length = 0;
      char32_t cp = decodeUtf8(chunk.data() + i, length);
      std::string_view piece = chunk.substr(i, length);
      i += length;
      if (leading_) {
        if (cp == character_ && leading_removed_ < start_) {
          ++leading_removed_;
          continue;
        }
        leading_ = false;
      }
      if (stop_ > 0 && cp == character_) {
        ++held_;
        continue;
      }
      for (; held_ > 0; --held_)
        out += utf8_;
      out += piece;
    }
    if (!out.empty())
      next->text(out);
  }
  void end() override {
    std::string out;
    for (std::size_t i = stop_; i < held_; ++i)
      out += utf8_;
    held_ = 0;
    if (!out.empty())
      next->text(out);
    next->end();
  }
  void finish() override { next->finish(); }

private:
  char32_t character_;
  std::string utf8_;
  std::size_t start_;
  std::size_t stop_;
  std::size_t leading_removed_ = 0;
  bool leading_ = false;
  std::size_t held_ = 0;
};

// Metaspace: the replacement character disappears in the first token (unless the scheme is
// "never") and becomes a space elsewhere; characters never straddle chunks.
class MetaspaceStage final : public Stage {
public:
  explicit MetaspaceStage(const DecoderStep &step) : never_(step.prepend_scheme == PrependScheme::Never) {
    appendUtf8(replacement_, step.character);
  }
  void begin() override {
    ++index_;
    next->begin();
  }
  void text(std::string_view chunk) override {
    std::string_view with = (index_ == 1 && !never_) ? "" : " ";
    std::string out;
    for (std::size_t at = 0; at < chunk.size();) {
      if (chunk.compare(at, replacement_.size(), replacement_) == 0) {
        out += with;
        at += replacement_.size();
      } else {
        out.push_back(chunk[at++]);
      }
    }
    next->text(out);
  }
  void end() override { next->end(); }
  void finish() override {
    index_ = 0;
    next->finish();
  }

private:
  std::string replacement_;
  bool never_;
  std::size_t index_ = 0;
};

// ByteLevel: every token back to bytes, all joined into one token decoded with U+FFFD for bad
// sequences; an incomplete character at the end is held until it completes or the stream ends.
class ByteLevelStage final : public Stage {
public:
  void begin() override {
    token_.clear();
    if (!open_) {
      open_ = true;
      next->begin();
    }
  }
  void text(std::string_view chunk) override { token_.append(chunk); }
  void end() override {
    bytes_ += byteLevelBytes(token_);
    token_.clear();
    std::string out;
    bytes_.erase(0, appendUtf8LossyPrefix(out, bytes_));
    if (!out.empty())
      next->text(out);
  }
  void finish() override {
    if (!open_)
      next->begin(); // no tokens decode to one empty token
    std::string out;
    appendUtf8Lossy(out, bytes_);
    bytes_.clear();
    if (!out.empty())
      next->text(out);
    next->end();
    open_ = false;
    next->finish();
  }

private:
  bool open_ = false;
  std::string token_;
  std::string bytes_;
};

// BPEDecoder: the suffix becomes a space, except in the last token where it is removed; a token
// is held until the next one shows it was not the last.
class BpeSuffixStage final : public Stage {
public:
  explicit BpeSuffixStage(std::string suffix) : suffix_(std::move(suffix)) {}
  void begin() override {
    release(" ");
    has_token_ = true;
  }
  void text(std::string_view chunk) override { token_.append(chunk); }
  void end() override {}
  void finish() override {
    release("");
    next->finish();
  }

private:
  void release(std::string_view with) {
    if (!has_token_)
      return;
    std::string out;
    std::size_t last = 0;
    for (std::size_t at = token_.find(suffix_); at != std::string::npos; at = token_.find(suffix_, last)) {
      out.append(token_, last, at - last);
      out += with;
      last = at + suffix_.size();
    }
    out.append(token_, last, std::string::npos);
    next->begin();
    next->text(out);
    next->end();
    token_.clear();
    has_token_ = false;
  }

  std::string suffix_;
  std::string token_;
  bool has_token_ = false;
};

class ChainStream final : public DecoderStream {
public:
  ChainStream(bool present, const std::vector<DecoderStep> &steps) {
    if (!present)
      stages_.push_back(std::make_unique<JoinWithSpaces>());
    for (const DecoderStep &step : steps) {
      switch (step.kind) {
      case DecoderStep::Kind::Replace:
        if (step.pattern->isLiteral())
          stages_.push_back(std::make_unique<ReplaceLiteral>(step.pattern->source(), step.text));
        else
          stages_.push_back(std::make_unique<ReplaceRegex>(step));
        break;
      case DecoderStep::Kind::ByteFallback:
        stages_.push_back(std::make_unique<ByteFallbackStage>());
        break;
      case DecoderStep::Kind::Fuse:
        stages_.push_back(std::make_unique<FuseStage>());
        break;
      case DecoderStep::Kind::Strip:
        stages_.push_back(std::make_unique<StripStage>(step));
        break;
      case DecoderStep::Kind::Metaspace:
        stages_.push_back(std::make_unique<MetaspaceStage>(step));
        break;
      case DecoderStep::Kind::ByteLevel:
        stages_.push_back(std::make_unique<ByteLevelStage>());
        break;
      case DecoderStep::Kind::BpeSuffix:
        stages_.push_back(std::make_unique<BpeSuffixStage>(step.text));
        break;
      }
    }
    for (std::size_t i = 0; i < stages_.size(); ++i)
      stages_[i]->next = i + 1 < stages_.size() ? stages_[i + 1].get() : &sink_;
  }

  void token(std::string_view text) override {
    Stage *first = stages_.empty() ? static_cast<Stage *>(&sink_) : stages_.front().get();
    first->begin();
    if (!text.empty())
      first->text(text);
    first->end();
  }
  void finish() override {
    Stage *first = stages_.empty() ? static_cast<Stage *>(&sink_) : stages_.front().get();
    first->finish();
  }
  std::string take() override {
    std::string out;
    out.swap(sink_.output);
    return out;
  }

private:
  std::vector<std::unique_ptr<Stage>> stages_;
  Sink sink_;
};

} // namespace

std::unique_ptr<DecoderStream> makeDecoderStream(bool present, const std::vector<DecoderStep> &steps) {
  return std::make_unique<ChainStream>(present, steps);
}

} // namespace tico::llm::detail
