#pragma once
// The "basis" of an estimate: for each figure, named by its output key ("weights_bytes"), the
// formula and source of its value (docs/contract.md). An estimate has about 40 of them. As a
// std::map<std::string, std::string> they cost two or three allocations each and a tree walk of
// key compares per insert (issue 18); Basis keeps every value in one string (the arena) and per
// figure an entry {key, offset, length}, kept in key order, so that a whole basis is two
// allocations (none when a finished basis of the same thread left its storage) and a producer
// formats its text straight into place.
//
// It behaves as the map did: writing a key again replaces its value (the last write wins), and
// iteration visits the keys in ascending byte order (std::map's, the order the JSON lists them).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer {

/// A figure's name as a basis key: a string literal. The entry keeps a view of it and never
/// copies it, which is safe only for text that lives as long as the program; the consteval
/// constructor admits constant arrays alone, so a key built at run time does not compile.
class BasisKey {
 public:
  template <size_t N>
  consteval BasisKey(const char (&k)[N])  // NOLINT(google-explicit-constructor): a literal
      : text_(k, N - 1), order_(order_of(text_)) {}
  constexpr std::string_view text() const { return text_; }
  /// The first eight bytes as one big-endian number, zeros past the end: two keys' numbers
  /// compare as their first eight bytes do in byte order (a key holds no zero byte), so most
  /// key compares are one integer compare, made at compile time for this side (issue 18).
  constexpr uint64_t order() const { return order_; }
  static constexpr uint64_t order_of(std::string_view k) {
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i)
      v = (v << 8) | (i < k.size() ? static_cast<unsigned char>(k[i]) : 0u);
    return v;
  }

 private:
  std::string_view text_;
  uint64_t order_;
};

class Basis {
 public:
  /// What iteration and find() give: views into the basis, valid until it next changes.
  struct Entry {
    std::string_view key;
    std::string_view value;
  };

 private:
  struct Slot {
    uint64_t order;        // BasisKey::order() of the key
    std::string_view key;  // a literal (BasisKey)
    uint32_t offset = 0;   // of the value in arena_
    uint32_t size = 0;
  };
  struct Storage;

 public:
  class const_iterator {
   public:
    const_iterator(const Slot* slot, const std::string* arena) : slot_(slot), arena_(arena) {}
    Entry operator*() const {
      return {slot_->key, std::string_view(*arena_).substr(slot_->offset, slot_->size)};
    }
    const_iterator& operator++() {
      ++slot_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return slot_ == o.slot_; }

   private:
    const Slot* slot_;
    const std::string* arena_;
  };

  Basis() = default;
  Basis(const Basis&) = default;
  Basis(Basis&&) noexcept = default;
  Basis& operator=(const Basis&) = default;
  Basis& operator=(Basis&&) noexcept = default;
  /// Leaves its storage, when it has its reserved size, to the thread's next basis (basis.cc).
  ~Basis() {
    if (arena_.capacity() >= kArenaBytes) leave_storage();
  }

  /// The value of `key` becomes `value`.
  void set(BasisKey key, std::string_view value) {
    set_with(key, [value](std::string& out) { out.append(value); });
  }
  /// Appends `text` to the value of `key` (an absent key starts empty).
  void append(BasisKey key, std::string_view text) {
    append_with(key, [text](std::string& out) { out.append(text); });
  }
  /// The value of `key` becomes what `write(std::string& out)` appends to `out` (the arena: it
  /// must only append, and must not read this basis, whose views the growth may invalidate).
  template <typename Write>
  void set_with(BasisKey key, Write&& write) {
    if (off_) return;
    const size_t i = open(key.text(), key.order(), false);
    write(arena_);
    close(i);
  }
  /// The same, appended to the value `key` has (an absent key starts empty).
  template <typename Write>
  void append_with(BasisKey key, Write&& write) {
    if (off_) return;
    const size_t i = open(key.text(), key.order(), true);
    write(arena_);
    close(i);
  }
  /// Adds `key` with an empty value unless it has one (map::try_emplace).
  void add_empty(BasisKey key) { append(key, {}); }

  /// The entry of `key`, or end().
  const_iterator find(std::string_view key) const;
  /// The value of `key`; throws std::out_of_range when there is none.
  std::string_view at(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != end(); }

  const_iterator begin() const { return {slots_.data(), &arena_}; }
  const_iterator end() const { return {slots_.data() + slots_.size(), &arena_}; }
  size_t size() const { return slots_.size(); }
  bool empty() const { return slots_.empty(); }
  void clear();

  /// Stops taking texts: every later write is skipped before its text is made (an answer that
  /// does not show the basis, "basis": false, formats none of it). Producers that build a text
  /// before they write it ask on() first.
  void turn_off() { off_ = true; }
  bool on() const { return !off_; }
  /// Same keys with the same values (the arena's layout and its replaced texts aside).
  friend bool operator==(const Basis& a, const Basis& b);

 private:
  // The index of the slot of `key` (added, in key order, when absent) with its value moved to
  // the arena's end, ready for appends; `keep`: keep the value it had, else empty it.
  // The key comes as its text and order (three registers, not a struct passed in memory).
  size_t open(std::string_view key, uint64_t order, bool keep);
  // The slots and the arena at the first write: the storage a finished basis of the same thread
  // left, else newly reserved.
  void take_storage();
  void leave_storage();
  // The arena's first reservation: room for a full estimate's texts (basis.cc).
  static constexpr size_t kArenaBytes = 4096;
  void close(size_t i) { slots_[i].size = static_cast<uint32_t>(arena_.size() - slots_[i].offset); }

  std::vector<Slot> slots_;  // ascending by key, no key twice
  std::string arena_;        // the values one after another, and the replaced ones
  bool off_ = false;         // turn_off(): writes are skipped
};

}  // namespace gpusizer
