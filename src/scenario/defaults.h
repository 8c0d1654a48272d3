#pragma once
// The scenario defaults that follow other fields, shared by parse_scenario (scenario.cc) and the
// typed edits (scenario_edit.cc), so that an edited scenario derives them as a parsed one does.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gpusizer/scenario.h"
#include "gpusizer/scenario_edit.h"

namespace gpusizer {

/// The KV cache's default format: the weights' own 16- or 32-bit float format, else bf16.
std::string_view default_kv_id(const NumberFormat& weights);

/// seq_len, prompt_len and output_len from those given (has_seq: seq_len is s.seq_len).
void derive_lengths(Scenario& s, bool has_seq, std::optional<int64_t> prompt,
                    std::optional<int64_t> output);

/// The global batch (batch x accumulation x dp) unless given; given, the accumulation that
/// reaches it unless that is given too.
void derive_batches(Scenario& s, const ScenarioGiven& given);

/// The split that gpu_count gives with the parallel fields the input named (the others at
/// their defaults in s.parallel): serving on several GPUs with no tp or pp leaves the split to
/// the layout rule (a dp given is the replicas it must keep); dp takes the rest of gpu_count.
/// Sets gpu_count, parallel.dp, default_layout and requested_replicas.
void place_split(Scenario& s, std::optional<int64_t> count, bool tp_given, bool pp_given,
                 bool dp_given);

}  // namespace gpusizer
