#pragma once
// A few figures by name, held in place in ascending byte order of the names (issue 18): the
// bands of an estimate's figures and the training step's parts by cause. As a
// std::map<std::string, T> each entry was a node of its own (an allocation, a key string and a
// rebalance, ~300 instructions to insert and free); here an entry is a name (a view of static
// text, never copied) and its value, at most N of them, and the object allocates nothing.
//
// It reads as the map did: iteration visits the names in ascending byte order (the order the
// JSON lists them), find() and at() look a name up, and setting a name again replaces its value.
#include <cstddef>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpusizer {

template <typename T, size_t N>
class NamedFigures {
 public:
  struct Entry {
    std::string_view name;
    T value;
  };

  // The entries are left unconstructed: an empty object costs its count alone (a search builds
  // many estimates whose speed has no bands).
  NamedFigures() {}  // NOLINT(modernize-use-equals-default): the union stays unconstructed
  NamedFigures(const NamedFigures& o) : size_(o.size_) {
    for (size_t i = 0; i < size_; ++i) new (&entries_[i]) Entry(o.entries_[i]);
  }
  NamedFigures& operator=(const NamedFigures& o) {
    size_ = o.size_;
    for (size_t i = 0; i < size_; ++i) new (&entries_[i]) Entry(o.entries_[i]);
    return *this;
  }
  ~NamedFigures() = default;

  /// The value of `name`, a string literal, becomes `value`.
  template <size_t M>
  void set(const char (&name)[M], const T& value) {
    set_static(std::string_view(name, M - 1), value);
  }
  /// The same for a view of text that lives as long as the program (a literal's view in a
  /// constant table); the object keeps the view.
  void set_static(std::string_view name, const T& value) {
    size_t i = size_;
    // Names usually come in ascending order: the new one goes at the end without a search.
    if (i > 0 && !(entries_[i - 1].name < name)) {
      i = 0;
      while (entries_[i].name < name) ++i;
      if (entries_[i].name == name) {
        entries_[i].value = value;
        return;
      }
    }
    if (size_ == N) throw std::length_error("NamedFigures: more than its capacity");
    for (size_t j = size_; j > i; --j) new (&entries_[j]) Entry(entries_[j - 1]);
    new (&entries_[i]) Entry{name, value};
    ++size_;
  }

  /// The value of `name`, or nullptr.
  const T* find(std::string_view name) const {
    for (size_t i = 0; i < size_; ++i)
      if (entries_[i].name == name) return &entries_[i].value;
    return nullptr;
  }
  /// The value of `name`; throws std::out_of_range when there is none.
  const T& at(std::string_view name) const {
    if (const T* v = find(name)) return *v;
    throw std::out_of_range("no figure named " + std::string(name));
  }
  bool contains(std::string_view name) const { return find(name) != nullptr; }

  const Entry* begin() const { return entries_; }
  const Entry* end() const { return entries_ + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() { size_ = 0; }

  friend bool operator==(const NamedFigures& a, const NamedFigures& b) {
    if (a.size_ != b.size_) return false;
    for (size_t i = 0; i < a.size_; ++i)
      if (a.entries_[i].name != b.entries_[i].name || !(a.entries_[i].value == b.entries_[i].value))
        return false;
    return true;
  }

 private:
  size_t size_ = 0;
  union {
    Entry entries_[N];
  };
};

}  // namespace gpusizer
