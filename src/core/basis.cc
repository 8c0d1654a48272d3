#include "gpusizer/basis.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace gpusizer {

namespace {

// Room for a full estimate's basis (22 to 28 texts of 2.1 to 3.2 KB in all for the JSONL
// benchmark's lines and a serving estimate under traffic; the arena's kArenaBytes, 4 KB),
// reserved at the first write so that filling it reallocates rarely; an Estimate without text
// (the searches' candidates) allocates nothing.
constexpr size_t kSlots = 32;

// Byte order of the keys (std::map<std::string>'s): by their first eight bytes as a number
// (BasisKey::order), then, for two keys that share them, by the rest.
bool slot_less(uint64_t a_order, std::string_view a, uint64_t b_order, std::string_view b) {
  if (a_order != b_order) return a_order < b_order;
  // Equal orders: both keys are the same below eight bytes, else both have eight or more.
  if (a.size() <= 8 || b.size() <= 8) return a.size() < b.size();
  return std::string_view(a.data() + 8, a.size() - 8) <
         std::string_view(b.data() + 8, b.size() - 8);
}

template <typename Slots>
auto lower_bound(Slots& slots, uint64_t order, std::string_view key) {
  return std::lower_bound(
      slots.begin(), slots.end(), key,
      [order](const auto& s, std::string_view k) { return slot_less(s.order, s.key, order, k); });
}

}  // namespace

// A thread's storage left by its last finished basis (issue 18: allocating and freeing the slots
// and the 4 KB arena cost ~1,500 instructions per estimate, the arena's through glibc's
// consolidation of its fast bins). `current` is null once the thread's storage is destroyed at
// its exit, so a basis destroyed later frees its own as before.
struct Basis::Storage {
  std::vector<Slot> slots;
  std::string arena;
  static thread_local Storage* current;
  Storage() { current = this; }
  ~Storage() { current = nullptr; }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  static Storage& of_thread() {
    thread_local Storage s;
    return s;
  }
};

thread_local Basis::Storage* Basis::Storage::current = nullptr;

void Basis::take_storage() {
  Storage& spare = Storage::of_thread();
  if (spare.arena.capacity() >= kArenaBytes) {
    slots_.swap(spare.slots);
    arena_.swap(spare.arena);
    return;
  }
  slots_.reserve(kSlots);
  arena_.reserve(kArenaBytes);
}

void Basis::leave_storage() {
  Storage* spare = Storage::current;
  if (!spare || spare->arena.capacity() >= kArenaBytes) return;
  slots_.clear();
  arena_.clear();
  slots_.swap(spare->slots);
  arena_.swap(spare->arena);
}

size_t Basis::open(std::string_view key, uint64_t order, bool keep) {
  if (slots_.capacity() == 0) take_storage();
  auto it = lower_bound(slots_, order, key);
  if (it == slots_.end() || it->order != order || it->key != key)
    it = slots_.insert(it, Slot{order, key, 0, 0});
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
  const uint64_t order = BasisKey::order_of(key);
  const auto it = lower_bound(slots_, order, key);
  if (it == slots_.end() || it->order != order || it->key != key) return end();
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
