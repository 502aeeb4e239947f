#include "core/raw_attributes.h"

#include <cstring>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/slab_pool.h"

namespace hlovm {
namespace {

constexpr std::string_view kMetadata = "metadata";

// Blocks up to this size come from slabs.
constexpr size_t kMaxSlabRep = 4096;

uint32_t PlainBytes(std::string_view name, std::string_view value) {
  return name == kMetadata ? 0 : static_cast<uint32_t>(name.size() + value.size() + 1);
}

}  // namespace

char* RawAttributes::NewRep(size_t bytes) {
  large_ = bytes > kMaxSlabRep;
  return large_ ? new char[bytes] : static_cast<char*>(IrPool().Allocate(bytes));
}

void RawAttributes::Release() {
  if (rep_ == nullptr) return;
  if (large_) {
    delete[] rep_;
  } else {
    SlabPool::Free(rep_);
  }
  rep_ = nullptr;
}

RawAttributes& RawAttributes::operator=(const RawAttributes& other) {
  if (this != &other) {
    Clear();
    CopyFrom(other);
  }
  return *this;
}

RawAttributes& RawAttributes::operator=(RawAttributes&& other) noexcept {
  if (this != &other) {
    Release();
    rep_ = std::exchange(other.rep_, nullptr);
    plain_bytes_ = std::exchange(other.plain_bytes_, 0);
    large_ = other.large_;
  }
  return *this;
}

size_t RawAttributes::RepBytes() const {
  if (rep_ == nullptr) return 0;
  const uint32_t count = Count();
  const uint32_t* lengths = Lengths();
  size_t text = 0;
  for (uint32_t k = 0; k < 2 * count; ++k) text += lengths[k];
  return sizeof(uint32_t) * (1 + 2 * static_cast<size_t>(count)) + text;
}

void RawAttributes::CopyFrom(const RawAttributes& other) {
  if (other.rep_ == nullptr) return;
  const size_t bytes = other.RepBytes();
  rep_ = NewRep(bytes);
  std::memcpy(rep_, other.rep_, bytes);
  plain_bytes_ = other.plain_bytes_;
}

RawAttributes::Iterator RawAttributes::begin() const {
  if (rep_ == nullptr) return Iterator();
  return Iterator(Lengths(), Text());
}

RawAttributes::Iterator RawAttributes::end() const {
  if (rep_ == nullptr) return Iterator();
  return Iterator(Lengths() + 2 * Count(), nullptr);
}

RawAttributes::Entry RawAttributes::operator[](size_t k) const {
  Iterator it = begin();
  for (size_t j = 0; j < k; ++j) ++it;
  return *it;
}

std::optional<std::string_view> RawAttributes::Find(std::string_view name) const {
  for (const auto& [n, v] : *this) {
    if (n == name) return v;
  }
  return std::nullopt;
}

void RawAttributes::Assign(absl::Span<const Entry> entries) {
  // The entries may be views into the old text: it goes last.
  RawAttributes old = std::move(*this);
  if (!entries.empty()) {
    size_t text = 0;
    for (const auto& [n, v] : entries) text += n.size() + v.size();
    const size_t head = sizeof(uint32_t) * (1 + 2 * entries.size());
    char* rep = NewRep(head + text);
    auto* words = reinterpret_cast<uint32_t*>(rep);
    words[0] = static_cast<uint32_t>(entries.size());
    char* out = rep + head;
    for (size_t k = 0; k < entries.size(); ++k) {
      const auto& [n, v] = entries[k];
      words[1 + 2 * k] = static_cast<uint32_t>(n.size());
      words[2 + 2 * k] = static_cast<uint32_t>(v.size());
      std::memcpy(out, n.data(), n.size());
      out += n.size();
      std::memcpy(out, v.data(), v.size());
      out += v.size();
      plain_bytes_ += PlainBytes(n, v);
    }
    rep_ = rep;
  }
}

void RawAttributes::Append(std::string_view name, std::string_view value) {
  absl::InlinedVector<Entry, 8> entries(begin(), end());
  entries.emplace_back(name, value);
  Assign(entries);
}

void RawAttributes::Set(std::string_view name, std::string_view value) {
  absl::InlinedVector<Entry, 8> entries(begin(), end());
  bool found = false;
  for (Entry& e : entries) {
    if (e.first == name) {
      e.second = value;
      found = true;
      break;
    }
  }
  if (!found) entries.emplace_back(name, value);
  Assign(entries);
}

void RawAttributes::Clear() {
  Release();
  plain_bytes_ = 0;
}

bool RawAttributes::SameIgnoringMetadata(const RawAttributes& other) const {
  if (plain_bytes_ != other.plain_bytes_) return false;
  if (plain_bytes_ == 0) return true;
  Iterator a = begin(), b = other.begin();
  const Iterator a_end = end(), b_end = other.end();
  while (true) {
    while (a != a_end && (*a).first == kMetadata) ++a;
    while (b != b_end && (*b).first == kMetadata) ++b;
    if (a == a_end || b == b_end) return a == a_end && b == b_end;
    if (*a != *b) return false;
    ++a;
    ++b;
  }
}

}  // namespace hlovm
