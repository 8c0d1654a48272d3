#include "gpusizer/basis.h"

#include <cstring>
#include <stdexcept>
#include <utility>

namespace gpusizer {

// A thread's storage left by its last finished basis (issue 18: allocating and freeing the slots
// and the 4 KB arena cost ~1,500 instructions per estimate, the arena's through glibc's
// consolidation of its fast bins). `current` is null once the thread's storage is destroyed at
// its exit, so a basis destroyed later frees its own as before. The slots are one per key
// (basis_keys.h); a basis reads only those its present_ marks, so they need no clearing.
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
  if (spare.arena.capacity() >= kArenaBytes && spare.slots.size() == kBasisKeyCount) {
    slots_.swap(spare.slots);
    arena_.swap(spare.arena);
    return;
  }
  slots_.resize(kBasisKeyCount);
  arena_.reserve(kArenaBytes);
}

void Basis::leave_storage() {
  Storage* spare = Storage::current;
  if (!spare || spare->arena.capacity() >= kArenaBytes || slots_.size() != kBasisKeyCount) return;
  arena_.clear();
  slots_.swap(spare->slots);
  arena_.swap(spare->arena);
}

void Basis::move_to_end(Slot& slot) {
  // The old bytes stay behind unused; no other slot points into them.
  const size_t end = arena_.size();
  arena_.resize(end + slot.size);
  std::memcpy(arena_.data() + end, arena_.data() + slot.offset, slot.size);
  slot.offset = static_cast<uint32_t>(end);
}

Basis::const_iterator Basis::find(std::string_view key) const {
  const size_t i = basis_key_index(key);
  if (i == kBasisKeyCount || !present_.has(i)) return end();
  return {i, this};
}

std::string_view Basis::at(std::string_view key) const {
  const const_iterator it = find(key);
  if (it == end()) throw std::out_of_range("basis has no key " + std::string(key));
  return (*it).value;
}

size_t Basis::size() const {
  size_t n = 0;
  for (const uint64_t w : present_.bits) n += static_cast<size_t>(std::popcount(w));
  return n;
}

void Basis::clear() {
  present_ = {};
  arena_.clear();
}

bool operator==(const Basis& a, const Basis& b) {
  for (size_t w = 0; w < Basis::kWords; ++w)
    if (a.present_.bits[w] != b.present_.bits[w]) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
    if ((*i).value != (*j).value) return false;
  return true;
}

}  // namespace gpusizer
