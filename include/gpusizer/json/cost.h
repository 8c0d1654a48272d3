#pragma once
// The ownership block of an estimate as the contract's JSON (the "ownership" key of "cost").
#include <nlohmann/json.hpp>

#include "gpusizer/cost.h"

namespace gpusizer {

/// The ownership block as JSON (the "ownership" key of an estimate's "cost").
nlohmann::json to_json(const Ownership& o);

}  // namespace gpusizer
