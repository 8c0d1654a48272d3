#include "gpusizer/basis.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gpusizer {

namespace {

// Room for a full estimate's basis (22 to 28 texts of 2.1 to 3.2 KB in all for the JSONL
// benchmark's lines and a serving estimate under traffic), reserved at the first write so that
// filling it reallocates rarely; an Estimate without text (the searches' candidates) allocates
// nothing. 32 slots are 768 bytes, within glibc's per-thread cache of small blocks (1,032 bytes),
// which allocates and frees them for a few dozen instructions; a larger block costs a thousand.
constexpr size_t kSlots = 32;
constexpr size_t kArenaBytes = 4096;

// Byte order of the keys (std::map<std::string>'s), deciding by the first byte without a call
// to memcmp when it differs, as it does for most pairs of figure names (issue 18).
bool key_less(std::string_view a, std::string_view b) {
  if (!a.empty() && !b.empty() && a[0] != b[0])
    return static_cast<unsigned char>(a[0]) < static_cast<unsigned char>(b[0]);
  return a < b;
}

template <typename Slots>
auto lower_bound(Slots& slots, std::string_view key) {
  return std::lower_bound(slots.begin(), slots.end(), key,
                          [](const auto& s, std::string_view k) { return key_less(s.key, k); });
}

}  // namespace

size_t Basis::open(std::string_view key, bool keep) {
  if (slots_.empty()) {
    slots_.reserve(kSlots);
    arena_.reserve(kArenaBytes);
  }
  auto it = lower_bound(slots_, key);
  if (it == slots_.end() || it->key != key) it = slots_.insert(it, Slot{key, 0, 0});
  Slot& slot = *it;
  const size_t end = arena_.size();
  if (!keep || slot.size == 0) {
    slot.offset = static_cast<uint32_t>(end);
    slot.size = 0;
  } else if (slot.offset + slot.size != end) {
    // Not the last value written: copy it to the end, where the appends go. The old bytes stay
    // behind unused; no other slot points into them.
    arena_.resize(end + slot.size);
    std::memcpy(arena_.data() + end, arena_.data() + slot.offset, slot.size);
    slot.offset = static_cast<uint32_t>(end);
  }
  return static_cast<size_t>(it - slots_.begin());
}

Basis::const_iterator Basis::find(std::string_view key) const {
  const auto it = lower_bound(slots_, key);
  if (it == slots_.end() || it->key != key) return end();
  return {slots_.data() + (it - slots_.begin()), &arena_};
}

std::string_view Basis::at(std::string_view key) const {
  const const_iterator it = find(key);
  if (it == end()) throw std::out_of_range("basis has no key " + std::string(key));
  return (*it).value;
}

void Basis::clear() {
  slots_.clear();
  arena_.clear();
}

bool operator==(const Basis& a, const Basis& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    const Basis::Entry x = *i, y = *j;
    if (x.key != y.key || x.value != y.value) return false;
  }
  return true;
}

}  // namespace gpusizer
