#pragma once
// Batches: a JSONL file of scenarios is embarrassingly parallel, and its answers must come out in
// the order of its lines.
#include <cstddef>
#include <functional>
#include <string>

namespace gpusizer {

/// Calls `work(i)` for i in [0, count) on up to `threads` threads (0: one per core) and hands the
/// results to `write` in order of i, on the calling thread, a block at a time so that memory
/// stays bounded for any count. `work` must be safe to run concurrently. An exception it throws
/// is rethrown here in order: every item before the failing one has been written, none after.
void map_in_order(size_t count, const std::function<std::string(size_t)>& work,
                  const std::function<void(const std::string&)>& write, unsigned threads = 0);

}  // namespace gpusizer
