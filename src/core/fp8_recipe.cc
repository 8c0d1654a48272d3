#include "core/fp8_recipe.h"

#include <string>

namespace gpusizer {

bool fp8_gemm_any_layout(const Gpu& gpu) {
  // GB100 (B200, GB200) and GB110 (B300) are compute capability 10.0 and 10.3; GB20x is 12.0.
  return gpu.architecture_family() == "Blackwell" &&
         gpu.architecture.find("(GB1") != std::string::npos;
}

}  // namespace gpusizer
