#include "tico/support/clipped.h"

namespace tico {

std::string clipped(std::string_view text, std::size_t limit) {
  if (text.size() <= limit)
    return std::string(text);
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut; // never split a multi-byte character
  return std::string(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " bytes)";
}

} // namespace tico
