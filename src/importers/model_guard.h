#pragma once
// A check that a Model built from a stranger's file can be counted in int64 without overflow.
#include <string>

#include "gpusizer/model.h"

namespace gpusizer {

/// Throws InputError(`where`, ..., `code`) when the sizes add up to more than 1e16 parameters
/// (no real model comes near; int64 counting stays exact far beyond).
void check_countable(const Model& model, const std::string& where, const std::string& code);

}  // namespace gpusizer
