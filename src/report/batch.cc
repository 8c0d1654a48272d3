#include "gpusizer/batch.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace gpusizer {

void map_in_order(size_t count, const std::function<std::string(size_t)>& work,
                  const std::function<void(const std::string&)>& write, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  // Big enough that starting threads per block costs nothing next to the work, small enough that
  // a block's answers (a few kB each) stay a few MB.
  const size_t block = 512 * static_cast<size_t>(threads);
  std::vector<std::string> results;
  for (size_t start = 0; start < count; start += block) {
    const size_t n = std::min(block, count - start);
    results.assign(n, std::string());
    std::vector<std::exception_ptr> errors(n);
    std::atomic<size_t> next{0};
    auto run = [&] {
      for (size_t i = next++; i < n; i = next++) {
        try {
          results[i] = work(start + i);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
    };
    const unsigned helpers = static_cast<unsigned>(std::min<size_t>(threads, n)) - 1;
    std::vector<std::thread> pool;
    pool.reserve(helpers);
    for (unsigned t = 0; t < helpers; ++t) pool.emplace_back(run);
    run();
    for (auto& t : pool) t.join();
    for (size_t i = 0; i < n; ++i) {
      if (errors[i]) std::rethrow_exception(errors[i]);
      write(results[i]);
    }
  }
}

}  // namespace gpusizer
