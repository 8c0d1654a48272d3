#pragma once
// Strict readers of data/instances.csv (cloud instance shapes) and data/servers.csv (on-prem
// server forms): every row names a catalog GPU, a whole GPU count, a finite price in range, a
// known currency, a date and a source; a bad cell is an InputError naming the file, line and
// column.
#include <string_view>
#include <vector>

#include "gpusizer/fleet.h"

namespace gpusizer {

std::vector<CloudInstance> parse_instances(std::string_view text, const std::vector<Gpu>& gpus);
/// Each form's holds_row over `gpus`.
std::vector<ServerForm> parse_servers(std::string_view text, const std::vector<Gpu>& gpus);

}  // namespace gpusizer
