// An instruction's attributes as written in HLO text: every `name=value`,
// in order, value text verbatim. The printer gives them back; a few readers
// look up attributes that have no typed field.
//
// All of them live in one block, carved from slabs (SlabPool) unless large:
// copying an instruction's attributes is one carve and one copy of bytes,
// freeing them one atomic decrement, and two sets are compared without
// touching either block where the attributes besides metadata differ in
// size or are absent (most instructions carry metadata alone).
#ifndef HLOVM_CORE_RAW_ATTRIBUTES_H_
#define HLOVM_CORE_RAW_ATTRIBUTES_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/types/span.h"

namespace hlovm {

class RawAttributes {
 public:
  using Entry = std::pair<std::string_view, std::string_view>;

  // Walks the entries in order; an entry's views stay valid until the set
  // is next changed.
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Entry;

    Iterator() = default;
    Entry operator*() const {
      return {std::string_view(text_, lengths_[0]),
              std::string_view(text_ + lengths_[0], lengths_[1])};
    }
    Iterator& operator++() {
      text_ += lengths_[0] + lengths_[1];
      lengths_ += 2;
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const Iterator& other) const { return lengths_ == other.lengths_; }

   private:
    friend class RawAttributes;
    Iterator(const uint32_t* lengths, const char* text) : lengths_(lengths), text_(text) {}
    const uint32_t* lengths_ = nullptr;  // name and value length of each entry
    const char* text_ = nullptr;         // where this entry's name begins
  };

  RawAttributes() = default;
  RawAttributes(std::initializer_list<Entry> entries) { Assign(entries); }
  RawAttributes(const RawAttributes& other) { CopyFrom(other); }
  RawAttributes(RawAttributes&& other) noexcept
      : rep_(std::exchange(other.rep_, nullptr)),
        plain_bytes_(std::exchange(other.plain_bytes_, 0)),
        large_(other.large_) {}
  RawAttributes& operator=(const RawAttributes& other);
  RawAttributes& operator=(RawAttributes&& other) noexcept;
  RawAttributes& operator=(std::initializer_list<Entry> entries) {
    Assign(entries);
    return *this;
  }
  ~RawAttributes() { Release(); }

  size_t size() const { return rep_ == nullptr ? 0 : Count(); }
  bool empty() const { return rep_ == nullptr; }
  Iterator begin() const;
  Iterator end() const;
  // The k-th entry (walks the k before it).
  Entry operator[](size_t k) const;

  // The value of attribute `name`, if written.
  std::optional<std::string_view> Find(std::string_view name) const;
  // Replaces all entries (views into this set's own text are fine).
  void Assign(absl::Span<const Entry> entries);
  void Append(std::string_view name, std::string_view value);
  // Gives attribute `name` this value, in place where it was written, else
  // after the others.
  void Set(std::string_view name, std::string_view value);
  void Clear();

  // Whether both hold the same entries in the same order once metadata
  // entries are left out (metadata does not change what an instruction
  // computes).
  bool SameIgnoringMetadata(const RawAttributes& other) const;

 private:
  // rep_: the entry count (uint32), then each entry's name and value
  // lengths (uint32 pairs), then the names and values back to back; nullptr
  // when there are no entries.
  uint32_t Count() const { return *reinterpret_cast<const uint32_t*>(rep_); }
  const uint32_t* Lengths() const { return reinterpret_cast<const uint32_t*>(rep_) + 1; }
  const char* Text() const { return rep_ + sizeof(uint32_t) * (1 + 2 * Count()); }
  void CopyFrom(const RawAttributes& other);
  size_t RepBytes() const;
  // A block for a rep of `bytes`; large_ says where it came from.
  char* NewRep(size_t bytes);
  void Release();

  char* rep_ = nullptr;
  // The bytes of the entries other than metadata, plus one for each such
  // entry: zero exactly when there are none.
  uint32_t plain_bytes_ = 0;
  bool large_ = false;  // rep_ is from new[], not a slab
};

}  // namespace hlovm

#endif  // HLOVM_CORE_RAW_ATTRIBUTES_H_
