#include "core/npz.h"

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndRecord = 0x06054b50;
constexpr uint32_t kZip64EndRecord = 0x06064b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr size_t kEndRecordSize = 22;

// Little-endian fields of the zip records, bounds-checked by the callers.
uint64_t Read(std::string_view bytes, size_t at, int size) {
  uint64_t value = 0;
  for (int i = 0; i < size; ++i) {
    value |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[at + i])) << (8 * i);
  }
  return value;
}

void Append(std::string* out, uint64_t value, int size) {
  for (int i = 0; i < size; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint32_t Crc32(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed large data in pieces.
  size_t at = 0;
  while (at < data.size()) {
    const size_t n = std::min<size_t>(data.size() - at, 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data() + at), static_cast<uInt>(n));
    at += n;
  }
  return static_cast<uint32_t>(crc);
}

class NpzReader {
 public:
  NpzReader(std::string_view bytes, std::string_view name) : bytes_(bytes), name_(name) {}

  absl::StatusOr<std::vector<NpzEntry>> Read() {
    HLOVM_RETURN_IF_ERROR(FindDirectory());
    std::vector<NpzEntry> entries;
    std::set<std::string> seen;
    size_t at = directory_offset_;
    for (uint64_t i = 0; i < entry_count_; ++i) {
      if (!Fits(at, 46) || Read32(at) != kCentralHeader) {
        return Error(absl::StrCat("central directory entry ", i, " is damaged"));
      }
      const uint16_t flags = Read16(at + 8);
      const uint16_t method = Read16(at + 10);
      const uint32_t crc = Read32(at + 16);
      uint64_t compressed = Read32(at + 20);
      uint64_t size = Read32(at + 24);
      const size_t name_len = Read16(at + 28), extra_len = Read16(at + 30),
                   comment_len = Read16(at + 32);
      uint64_t local = Read32(at + 42);
      if (!Fits(at + 46, name_len + extra_len + comment_len)) {
        return Error(absl::StrCat("central directory entry ", i, " is truncated"));
      }
      const std::string file_name(bytes_.substr(at + 46, name_len));
      HLOVM_RETURN_IF_ERROR(
          ReadZip64Extra(at + 46 + name_len, extra_len, &size, &compressed, &local, file_name));
      at += 46 + name_len + extra_len + comment_len;
      if (absl::EndsWith(file_name, "/")) continue;  // a directory
      if (!absl::EndsWith(file_name, ".npy")) {
        return Error(absl::StrCat("entry '", file_name,
                                  "' is not an .npy file (an .npz holds only .npy entries)"));
      }
      if (flags & 1) return Error(absl::StrCat("entry '", file_name, "' is encrypted"));
      NpzEntry entry;
      entry.name = file_name.substr(0, file_name.size() - 4);
      if (!seen.insert(entry.name).second) {
        return Error(absl::StrCat("entry '", file_name, "' appears twice"));
      }
      HLOVM_ASSIGN_OR_RETURN(entry.npy, EntryData(file_name, method, crc, compressed, size, local));
      entries.push_back(std::move(entry));
    }
    return entries;
  }

 private:
  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(Sv(name_), ": not a valid .npz file: ", Sv(what)));
  }
  bool Fits(uint64_t at, uint64_t size) const {
    return at <= bytes_.size() && size <= bytes_.size() - at;
  }
  uint16_t Read16(size_t at) const { return static_cast<uint16_t>(hlovm::Read(bytes_, at, 2)); }
  uint32_t Read32(size_t at) const { return static_cast<uint32_t>(hlovm::Read(bytes_, at, 4)); }
  uint64_t Read64(size_t at) const { return hlovm::Read(bytes_, at, 8); }

  // Finds the end record (searching back over a comment of up to 64 KiB)
  // and, through the Zip64 records when the archive has them, the central
  // directory.
  absl::Status FindDirectory() {
    if (bytes_.size() < kEndRecordSize) {
      return Error(bytes_.size() >= 4 && Read32(0) == kLocalHeader
                       ? "the archive is truncated (no end record)"
                       : "not a zip archive");
    }
    size_t end = std::string_view::npos;
    const size_t lowest = bytes_.size() > kEndRecordSize + 0xffff
                              ? bytes_.size() - kEndRecordSize - 0xffff
                              : 0;
    for (size_t at = bytes_.size() - kEndRecordSize + 1; at-- > lowest;) {
      if (Read32(at) == kEndRecord && at + kEndRecordSize + Read16(at + 20) == bytes_.size()) {
        end = at;
        break;
      }
    }
    if (end == std::string_view::npos) {
      return Error(Read32(0) == kLocalHeader ? "the archive is truncated (no end record)"
                                              : "not a zip archive");
    }
    entry_count_ = Read16(end + 10);
    uint64_t directory_size = Read32(end + 12);
    directory_offset_ = Read32(end + 16);
    if (end >= 20 && Read32(end - 20) == kZip64Locator) {
      const uint64_t record = Read64(end - 20 + 8);
      if (!Fits(record, 56) || Read32(record) != kZip64EndRecord) {
        return Error("the Zip64 end record is damaged");
      }
      entry_count_ = Read64(record + 32);
      directory_size = Read64(record + 40);
      directory_offset_ = Read64(record + 48);
    }
    if (!Fits(directory_offset_, directory_size) || entry_count_ > directory_size / 46) {
      return Error("the central directory lies outside the file");
    }
    return absl::OkStatus();
  }

  // The Zip64 extra field holds, in this order, the sizes and offset whose
  // 32-bit fields are 0xffffffff.
  absl::Status ReadZip64Extra(size_t at, size_t length, uint64_t* size, uint64_t* compressed,
                              uint64_t* local, const std::string& file_name) const {
    const size_t end = at + length;
    while (at + 4 <= end) {
      const uint16_t id = Read16(at), field_len = Read16(at + 2);
      if (at + 4 + field_len > end) break;
      if (id == kZip64ExtraId) {
        size_t p = at + 4;
        for (uint64_t* value : {size, compressed, local}) {
          if (*value != 0xffffffffu) continue;
          if (p + 8 > at + 4 + field_len) {
            return Error(absl::StrCat("entry '", file_name, "' has a short Zip64 field"));
          }
          *value = Read64(p);
          p += 8;
        }
      }
      at += 4 + field_len;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> EntryData(const std::string& file_name, uint16_t method,
                                        uint32_t crc, uint64_t compressed, uint64_t size,
                                        uint64_t local) const {
    auto bad = [&](std::string_view what) {
      return Error(absl::StrCat("entry '", file_name, "': ", Sv(what)));
    };
    if (!Fits(local, 30) || Read32(local) != kLocalHeader) return bad("its local header is damaged");
    const uint64_t data = local + 30 + Read16(local + 26) + Read16(local + 28);
    if (!Fits(data, compressed)) return bad("its data is truncated");
    const std::string_view stored = bytes_.substr(data, compressed);
    std::string out;
    if (method == 0) {
      if (compressed != size) return bad("its stored size and size differ");
      out = std::string(stored);
    } else if (method == 8) {
      // Deflate expands at most about 1032:1; a larger claim is damage, and
      // must not decide how much is allocated.
      if (size / 1100 > compressed + 1) return bad("its size is inconsistent with its data");
      HLOVM_ASSIGN_OR_RETURN(out, Inflate(stored, size, file_name));
    } else {
      return bad(absl::StrCat("compression method ", method,
                              " (only stored and deflated entries, as NumPy writes, are read)"));
    }
    if (Crc32(out) != crc) return bad("its CRC-32 does not match (the file is damaged)");
    return out;
  }

  absl::StatusOr<std::string> Inflate(std::string_view in, uint64_t size,
                                      const std::string& file_name) const {
    auto bad = [&](std::string_view what) {
      return Error(absl::StrCat("entry '", file_name, "': ", Sv(what)));
    };
    std::string out;
    out.resize(size);
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return bad("zlib could not start");
    size_t in_at = 0, out_at = 0;
    char spare = 0;  // room for one byte past the stated size, to detect it
    int rc = Z_OK;
    while (true) {
      if (stream.avail_in == 0 && in_at < in.size()) {
        const size_t n = std::min<size_t>(in.size() - in_at, 1u << 30);
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + in_at));
        stream.avail_in = static_cast<uInt>(n);
        in_at += n;
      }
      const size_t out_n = std::min<size_t>(out.size() - out_at, 1u << 30);
      stream.next_out = out_n > 0 ? reinterpret_cast<Bytef*>(out.data() + out_at)
                                  : reinterpret_cast<Bytef*>(&spare);
      stream.avail_out = out_n > 0 ? static_cast<uInt>(out_n) : 1;
      rc = inflate(&stream, Z_NO_FLUSH);
      if (out_n > 0) {
        out_at += out_n - stream.avail_out;
      } else if (stream.avail_out == 0) {
        rc = Z_DATA_ERROR;  // more data than the stated size
      }
      if (rc == Z_STREAM_END || (rc != Z_OK && rc != Z_BUF_ERROR)) break;
      if (rc == Z_BUF_ERROR && stream.avail_in == 0 && in_at == in.size()) break;  // truncated
    }
    inflateEnd(&stream);
    if (rc != Z_STREAM_END) return bad("its deflated data is damaged or truncated");
    if (out_at != size) return bad("its deflated data is shorter than its stated size");
    return out;
  }

  std::string_view bytes_;
  std::string_view name_;
  uint64_t entry_count_ = 0;
  uint64_t directory_offset_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<NpzEntry>> ParseNpz(std::string_view bytes, std::string_view name) {
  return NpzReader(bytes, name).Read();
}

absl::StatusOr<std::vector<NpzEntry>> ReadNpz(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a .npz file"));
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot open the file"));
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read the file"));
  return ParseNpz(contents.str(), path);
}

absl::StatusOr<std::string> SerializeNpz(
    const std::vector<std::pair<std::string, const Literal*>>& arrays, NpyTypes types) {
  std::string out, directory;
  std::set<std::string> names;
  for (const auto& [name, literal] : arrays) {
    if (name.empty() || !names.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat("the .npz entry name '", name,
                                                     "' is empty or given twice"));
    }
    HLOVM_ASSIGN_OR_RETURN(std::string npy, SerializeNpy(*literal, types));
    const std::string file_name = name + ".npy";
    if (npy.size() >= 0xffffffffu || out.size() >= 0xffffffffu || file_name.size() > 0xffff) {
      return absl::UnimplementedError(absl::StrCat(
          "'", name, "' is too large for an .npz of this writer (4 GiB); write a directory of "
          ".npy files instead"));
    }
    const uint32_t crc = Crc32(npy);
    const uint32_t offset = static_cast<uint32_t>(out.size());
    // Version 2.0 needed, no flags, stored, time 00:00 on 1980-01-01.
    auto common = [&](std::string* s) {
      Append(s, 20, 2);
      Append(s, 0, 2);
      Append(s, 0, 2);
      Append(s, 0, 2);
      Append(s, 0x21, 2);
      Append(s, crc, 4);
      Append(s, npy.size(), 4);
      Append(s, npy.size(), 4);
      Append(s, file_name.size(), 2);
      Append(s, 0, 2);
    };
    Append(&out, kLocalHeader, 4);
    common(&out);
    out += file_name;
    out += npy;
    Append(&directory, kCentralHeader, 4);
    Append(&directory, 20, 2);  // made by: version 2.0
    common(&directory);
    Append(&directory, 0, 2);   // comment length
    Append(&directory, 0, 2);   // disk
    Append(&directory, 0, 2);   // internal attributes
    Append(&directory, 0, 4);   // external attributes
    Append(&directory, offset, 4);
    directory += file_name;
  }
  if (out.size() >= 0xffffffffu || arrays.size() >= 0xffff) {
    return absl::UnimplementedError("too much for an .npz of this writer; write a directory");
  }
  const uint32_t directory_offset = static_cast<uint32_t>(out.size());
  out += directory;
  Append(&out, kEndRecord, 4);
  Append(&out, 0, 2);
  Append(&out, 0, 2);
  Append(&out, arrays.size(), 2);
  Append(&out, arrays.size(), 2);
  Append(&out, directory.size(), 4);
  Append(&out, directory_offset, 4);
  Append(&out, 0, 2);
  return out;
}

absl::Status WriteNpz(const std::vector<std::pair<std::string, const Literal*>>& arrays,
                      const std::string& path, NpyTypes types) {
  HLOVM_ASSIGN_OR_RETURN(std::string bytes, SerializeNpz(arrays, types));
  return WriteWholeFile(path, bytes);
}

}  // namespace hlovm
