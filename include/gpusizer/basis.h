#pragma once
// The "basis" of an estimate: for each figure, named by its output key ("weights_bytes"), the
// formula and source of its value (docs/contract.md). An estimate has about 40 of them. As a
// std::map<std::string, std::string> they cost two or three allocations each and a tree walk of
// key compares per insert (issue 18); Basis keeps every value in one string (the arena) and per
// figure an entry {offset, length} at the key's index in the list of every key
// (gpusizer/basis_keys.h, resolved at compile time), so that a whole basis is two allocations
// (none when a finished basis of the same thread left its storage), a producer formats its text
// straight into place, and finding a key's entry is a load.
//
// It behaves as the map did: writing a key again replaces its value (the last write wins), and
// iteration visits the keys in ascending byte order (std::map's, the order the JSON lists them).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpusizer/basis_keys.h"

namespace gpusizer {

/// A figure's name as a basis key: a string literal of the list of keys (gpusizer/basis_keys.h),
/// resolved to its index there at compile time; the consteval constructor admits constant arrays
/// alone, and a key the list lacks does not compile.
class BasisKey {
 public:
  template <size_t N>
  consteval BasisKey(const char (&k)[N])  // NOLINT(google-explicit-constructor): a literal
      : index_(static_cast<uint32_t>(basis_key_index(std::string_view(k, N - 1)))) {
    if (index_ == kBasisKeyCount) throw "a basis key missing from kBasisKeys (basis_keys.h)";
  }
  constexpr std::string_view text() const { return kBasisKeys[index_]; }
  constexpr uint32_t index() const { return index_; }

 private:
  uint32_t index_;
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
    uint32_t offset = 0;  // of the value in arena_
    uint32_t size = 0;
  };
  struct Storage;
  // Which keys have a value: bit i of word i / 64 for kBasisKeys[i].
  static constexpr size_t kWords = (kBasisKeyCount + 63) / 64;
  struct Present {
    uint64_t bits[kWords] = {};
    bool has(size_t i) const { return (bits[i / 64] >> (i % 64)) & 1u; }
    void add(size_t i) { bits[i / 64] |= uint64_t{1} << (i % 64); }
    // The first key at or after `i` that has a value, else kBasisKeyCount.
    size_t next(size_t i) const {
      for (size_t w = i / 64; w < kWords; ++w) {
        const uint64_t left = w == i / 64 ? bits[w] >> (i % 64) << (i % 64) : bits[w];
        if (left) return w * 64 + static_cast<size_t>(std::countr_zero(left));
      }
      return kBasisKeyCount;
    }
  };

 public:
  class const_iterator {
   public:
    const_iterator(size_t index, const Basis* basis) : index_(index), basis_(basis) {}
    Entry operator*() const {
      const Slot& s = basis_->slots_[index_];
      return {kBasisKeys[index_], std::string_view(basis_->arena_).substr(s.offset, s.size)};
    }
    const_iterator& operator++() {
      index_ = basis_->present_.next(index_ + 1);
      return *this;
    }
    bool operator==(const const_iterator& o) const { return index_ == o.index_; }

   private:
    size_t index_;
    const Basis* basis_;
  };

  Basis() = default;
  Basis(const Basis&) = default;
  Basis(Basis&& o) noexcept
      : slots_(std::move(o.slots_)),
        arena_(std::move(o.arena_)),
        present_(o.present_),
        off_(o.off_) {
    o.present_ = {};
  }
  Basis& operator=(const Basis&) = default;
  Basis& operator=(Basis&& o) noexcept {
    slots_ = std::move(o.slots_);
    arena_ = std::move(o.arena_);
    present_ = o.present_;
    off_ = o.off_;
    o.present_ = {};
    return *this;
  }
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
    const size_t i = open(key.index(), false);
    write(arena_);
    close(i);
  }
  /// The same, appended to the value `key` has (an absent key starts empty).
  template <typename Write>
  void append_with(BasisKey key, Write&& write) {
    if (off_) return;
    const size_t i = open(key.index(), true);
    write(arena_);
    close(i);
  }
  /// Adds `key` with an empty value unless it has one (map::try_emplace).
  void add_empty(BasisKey key) { append(key, {}); }

  /// The entry of `key`, or end().
  const_iterator find(std::string_view key) const;
  /// The same for a literal key, its index resolved at compile time: no search of the key list
  /// by string (issue 18: ~170 instructions a find).
  const_iterator find_key(BasisKey key) const {
    return present_.has(key.index()) ? const_iterator{key.index(), this} : end();
  }
  /// The value of `key`; throws std::out_of_range when there is none.
  std::string_view at(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != end(); }

  /// Calls `f(key, value)` for each entry in begin()'s order, each present key found by
  /// clearing the bits below it rather than by a search from the last one, and each value viewed
  /// without substr's bounds check (issue 18: the answer's writer walks ~24 entries a line).
  template <typename F>
  void for_each(F&& f) const {
    for (size_t w = 0; w < kWords; ++w) {
      for (uint64_t bits = present_.bits[w]; bits != 0; bits &= bits - 1) {
        const size_t i = w * 64 + static_cast<size_t>(std::countr_zero(bits));
        const Slot& s = slots_[i];
        f(kBasisKeys[i], std::string_view(arena_.data() + s.offset, s.size));
      }
    }
  }

  const_iterator begin() const { return {present_.next(0), this}; }
  const_iterator end() const { return {kBasisKeyCount, this}; }
  size_t size() const;
  bool empty() const { return begin() == end(); }
  void clear();

  /// Stops taking texts: every later write is skipped before its text is made (an answer that
  /// does not show the basis, "basis": false, formats none of it). Producers that build a text
  /// before they write it ask on() first.
  void turn_off() { off_ = true; }
  bool on() const { return !off_; }
  /// Same keys with the same values (the arena's layout and its replaced texts aside).
  friend bool operator==(const Basis& a, const Basis& b);

 private:
  // The slot of kBasisKeys[index] (marked present) with its value at the arena's end, ready for
  // appends; `keep`: keep the value it had, else empty it. Returns `index`.
  size_t open(size_t index, bool keep) {
    if (slots_.empty()) take_storage();
    Slot& slot = slots_[index];
    const auto end = static_cast<uint32_t>(arena_.size());
    if (keep && present_.has(index) && slot.size != 0) {
      if (slot.offset + slot.size != end) move_to_end(slot);
    } else {
      slot = {end, 0};
    }
    present_.add(index);
    return index;
  }
  // A kept value that is not the last one written, copied to the arena's end (basis.cc).
  void move_to_end(Slot& slot);
  // The slots and the arena at the first write: the storage a finished basis of the same thread
  // left, else newly reserved.
  void take_storage();
  void leave_storage();
  // The arena's first reservation: room for a full estimate's texts (basis.cc).
  static constexpr size_t kArenaBytes = 4096;
  void close(size_t i) { slots_[i].size = static_cast<uint32_t>(arena_.size() - slots_[i].offset); }

  std::vector<Slot> slots_;  // one per key of kBasisKeys once written to; read where present_
  std::string arena_;        // the values one after another, and the replaced ones
  Present present_;          // the keys that have a value
  bool off_ = false;         // turn_off(): writes are skipped
};

}  // namespace gpusizer
