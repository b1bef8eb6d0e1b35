// GPT-2's byte-to-character table, shared by the ByteLevel pre-tokenizer and decoder.
//
// Byte-level BPE vocabularies are written in printable characters: each byte of the UTF-8 input
// is replaced by one character (printable Latin-1 bytes by themselves, the others by U+0100 and
// up, so a space becomes "Ġ"), and the decoder maps the characters back to bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tico::llm::detail {

// UTF-8 of the character standing for `byte`.
std::string_view byteLevelChar(std::uint8_t byte);
// The byte a character stands for, or -1 when the character is not in the table.
int byteLevelByte(char32_t cp);
// The bytes a byte-level token stands for: each of its characters through the table; a token
// with a character outside the table stands for its own UTF-8 bytes (as the library decodes).
std::string byteLevelBytes(std::string_view token);

} // namespace tico::llm::detail
