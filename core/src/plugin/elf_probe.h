// Inspects a shared library file without loading it.
//
// Loading runs the library's static constructors, so the host decides whether a file is a
// tico plugin by reading its ELF symbol tables first. Boost 1.74's library_info is not used
// for this: it only reads .symtab (which `strip` and `install --strip` remove, so installed
// plugins would look like non-plugins) and trusts every size in the file (a truncated or
// corrupt file can make it read out of bounds). This reader checks every offset against the
// file size and looks at .dynsym as well as .symtab.
#pragma once

#include <string>

namespace tico::detail {

enum class ElfProbeResult {
  HasEntry,   // a visible symbol `symbol` lives in section `section`
  NoEntry,    // a well-formed shared library without that symbol
  NotElf,     // not an ELF file at all
  WrongClass, // ELF, but not this machine's word size / byte order
  NotShared,  // ELF, but not a shared object (an executable, an object file, ...)
  Corrupt,    // ELF whose headers or tables point outside the file
  Unreadable, // the file cannot be opened or read
};

struct ElfProbe {
  ElfProbeResult result = ElfProbeResult::Unreadable;
  std::string detail; // what exactly is wrong, for error messages ("" for HasEntry)
};

// Looks for a defined, default-visibility, non-local symbol named `symbol` whose section is
// named `section` (as BOOST_DLL_ALIAS_SECTIONED emits it).
ElfProbe probeElfSymbol(const std::string &path, const std::string &section,
                        const std::string &symbol);

} // namespace tico::detail
