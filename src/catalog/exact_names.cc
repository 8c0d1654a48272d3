#include "catalog/exact_names.h"

namespace gpusizer {

bool ExactNames::add(std::string_view spelling, uint32_t row) {
  return rows_.try_emplace(std::string(spelling), row).second;
}

}  // namespace gpusizer
