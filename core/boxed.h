// Boxed<T>: an optional value kept on the heap, with std::optional's
// interface (has_value, *, ->, emplace, reset, value_or, ==), copyable when
// T is.
//
// For the large attributes of an instruction that most instructions lack
// (a constant's literal, convolution or gather dimension numbers, ...): an
// empty Boxed costs one pointer where an empty std::optional costs the whole
// T, so every instruction of a module is smaller, and the parser, the
// passes' clones and the module's destruction touch less memory.
#ifndef HLOVM_CORE_BOXED_H_
#define HLOVM_CORE_BOXED_H_

#include <concepts>
#include <memory>
#include <optional>
#include <utility>

namespace hlovm {

template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT: as std::optional
  Boxed(T value) : p_(std::make_unique<T>(std::move(value))) {}  // NOLINT
  Boxed(std::optional<T> value) {                                 // NOLINT
    if (value.has_value()) p_ = std::make_unique<T>(std::move(*value));
  }
  Boxed(const Boxed& other)
    requires std::copy_constructible<T>
      : p_(other.p_ != nullptr ? std::make_unique<T>(*other.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& other)
    requires std::copy_constructible<T>
  {
    if (this != &other) p_ = other.p_ != nullptr ? std::make_unique<T>(*other.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(std::nullopt_t) {
    p_.reset();
    return *this;
  }

  template <class... Args>
  T& emplace(Args&&... args) {
    p_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *p_;
  }
  void reset() { p_.reset(); }

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return p_ != nullptr; }
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  T& value() { return *p_; }
  const T& value() const { return *p_; }
  template <class U>
  T value_or(U&& otherwise) const {
    return p_ != nullptr ? *p_ : static_cast<T>(std::forward<U>(otherwise));
  }

  friend bool operator==(const Boxed& a, const Boxed& b)
    requires std::equality_comparable<T>
  {
    if (a.has_value() != b.has_value()) return false;
    return !a.has_value() || *a == *b;
  }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace hlovm

#endif  // HLOVM_CORE_BOXED_H_
