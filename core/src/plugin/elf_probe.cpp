#include "plugin/elf_probe.h"

#include <elf.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

namespace tico::detail {

namespace {

#if __SIZEOF_POINTER__ == 8
using Ehdr = Elf64_Ehdr;
using Shdr = Elf64_Shdr;
using Sym = Elf64_Sym;
constexpr unsigned char kNativeClass = ELFCLASS64;
inline unsigned char symBind(unsigned char info) { return ELF64_ST_BIND(info); }
inline unsigned char symVisibility(unsigned char other) { return ELF64_ST_VISIBILITY(other); }
#else
using Ehdr = Elf32_Ehdr;
using Shdr = Elf32_Shdr;
using Sym = Elf32_Sym;
constexpr unsigned char kNativeClass = ELFCLASS32;
inline unsigned char symBind(unsigned char info) { return ELF32_ST_BIND(info); }
inline unsigned char symVisibility(unsigned char other) { return ELF32_ST_VISIBILITY(other); }
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kNativeData = ELFDATA2LSB;
#else
constexpr unsigned char kNativeData = ELFDATA2MSB;
#endif

// Reads byte ranges of a file, refusing any range that does not lie inside it.
class BoundedFile {
public:
  explicit BoundedFile(const std::string &path) {
    // ifstream does not keep the reason a file could not be opened; errno right after open()
    // is it (the stream opens the file with open(2)).
    errno = 0;
    in_.open(path, std::ios::binary);
    open_error_ = errno != 0 ? errno : EIO;
    if (in_) {
      in_.seekg(0, std::ios::end);
      size_ = static_cast<uint64_t>(in_.tellg());
    }
  }
  bool opened() const { return static_cast<bool>(in_); }
  int openError() const { return open_error_; }
  uint64_t size() const { return size_; }

  bool contains(uint64_t offset, uint64_t length) const {
    return offset <= size_ && length <= size_ - offset;
  }
  bool read(uint64_t offset, void *out, uint64_t length) {
    if (!contains(offset, length))
      return false;
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    in_.read(static_cast<char *>(out), static_cast<std::streamsize>(length));
    return static_cast<uint64_t>(in_.gcount()) == length;
  }
  bool readBytes(uint64_t offset, uint64_t length, std::vector<char> &out) {
    if (!contains(offset, length))
      return false;
    out.resize(length);
    return length == 0 || read(offset, out.data(), length);
  }

private:
  std::ifstream in_;
  uint64_t size_ = 0;
  int open_error_ = 0;
};

// A NUL-terminated name at `offset` inside a string table, or null when it runs off the end.
const char *nameAt(const std::vector<char> &table, uint64_t offset) {
  if (offset >= table.size())
    return nullptr;
  const void *end = std::memchr(table.data() + offset, '\0', table.size() - offset);
  return end == nullptr ? nullptr : table.data() + offset;
}

ElfProbe make(ElfProbeResult result, std::string detail) { return {result, std::move(detail)}; }

} // namespace

ElfProbe probeElfSymbol(const std::string &path, const std::string &section,
                        const std::string &symbol) {
  BoundedFile file(path);
  if (!file.opened())
    return make(ElfProbeResult::Unreadable, "cannot open the file: " + std::string(std::strerror(file.openError())));

  unsigned char ident[EI_NIDENT] = {};
  if (!file.read(0, ident, sizeof(ident)) || std::memcmp(ident, ELFMAG, SELFMAG) != 0)
    return make(ElfProbeResult::NotElf, "not an ELF file");
  if (ident[EI_CLASS] != kNativeClass || ident[EI_DATA] != kNativeData)
    return make(ElfProbeResult::WrongClass,
                "an ELF file for a different word size or byte order than this machine");

  Ehdr header{};
  if (!file.read(0, &header, sizeof(header)))
    return make(ElfProbeResult::Corrupt, "the ELF header is truncated");
  if (header.e_type != ET_DYN)
    return make(ElfProbeResult::NotShared, "an ELF file that is not a shared library");
  if (header.e_shnum == 0 || header.e_shentsize != sizeof(Shdr) ||
      header.e_shstrndx >= header.e_shnum ||
      !file.contains(header.e_shoff, uint64_t{header.e_shnum} * sizeof(Shdr)))
    return make(ElfProbeResult::Corrupt, "its section headers are missing or lie outside the file");

  std::vector<Shdr> sections(header.e_shnum);
  if (!file.read(header.e_shoff, sections.data(), sections.size() * sizeof(Shdr)))
    return make(ElfProbeResult::Corrupt, "its section headers cannot be read");

  // Every table used below is read whole, so each must fit inside the file first.
  auto readSection = [&](const Shdr &s, std::vector<char> &out) {
    return s.sh_type != SHT_NOBITS && file.readBytes(s.sh_offset, s.sh_size, out);
  };

  std::vector<char> section_names;
  if (!readSection(sections[header.e_shstrndx], section_names))
    return make(ElfProbeResult::Corrupt, "its section name table lies outside the file");

  std::size_t wanted_index = 0;
  for (std::size_t i = 1; i < sections.size(); ++i) {
    const char *name = nameAt(section_names, sections[i].sh_name);
    if (name != nullptr && section == name) {
      wanted_index = i;
      break;
    }
  }
  const std::string no_entry = "it has no '" + symbol + "' entry in section '" + section + "'";
  if (wanted_index == 0)
    return make(ElfProbeResult::NoEntry, no_entry);

  // .dynsym survives stripping; .symtab is also searched for libraries linked oddly.
  for (const Shdr &table : sections) {
    if (table.sh_type != SHT_DYNSYM && table.sh_type != SHT_SYMTAB)
      continue;
    if (table.sh_entsize != sizeof(Sym) || table.sh_link >= sections.size())
      return make(ElfProbeResult::Corrupt, "a symbol table has an invalid layout");
    std::vector<char> symbols, names;
    if (!readSection(table, symbols) || !readSection(sections[table.sh_link], names))
      return make(ElfProbeResult::Corrupt, "a symbol table lies outside the file");
    std::size_t count = symbols.size() / sizeof(Sym);
    for (std::size_t i = 0; i < count; ++i) {
      Sym sym;
      std::memcpy(&sym, symbols.data() + i * sizeof(Sym), sizeof(Sym));
      if (sym.st_shndx != wanted_index || symBind(sym.st_info) == STB_LOCAL ||
          symVisibility(sym.st_other) != STV_DEFAULT)
        continue;
      const char *name = nameAt(names, sym.st_name);
      if (name != nullptr && symbol == name)
        return make(ElfProbeResult::HasEntry, "");
    }
  }
  return make(ElfProbeResult::NoEntry, no_entry);
}

} // namespace tico::detail
