#include "gpusizer/speed_bands.h"

#include "catalog/data_json.h"
#include "gpusizer/error.h"
#include "gpusizer/json/speed_bands.h"

#include <cstdint>
#include <cstring>

namespace gpusizer {

std::optional<FigureKind> figure_kind(std::string_view figure) {
  // Pairs of reciprocal figures share a kind: a rate's error is its time's error inverted.
  static constexpr std::pair<std::string_view, FigureKind> kKinds[] = {
      {"decode_tokens_per_s", {"decode", false}},
      {"tpot_ms", {"decode", true}},
      {"prefill_tokens_per_s", {"prefill", false}},
      {"ttft_ms", {"prefill", true}},
      {"max_output_tokens_per_s", {"throughput", false}},
      {"e2e_output_tokens_per_s", {"throughput", false}},
      {"offline_output_tokens_per_s", {"throughput", false}},
      {"offline_time_s", {"throughput", true}},
      {"train_tokens_per_s", {"training", false}},
      {"train_tokens_per_s_per_gpu", {"training", false}},
      {"tflops_per_gpu", {"training", false}},
      {"mfu", {"training", false}},
      {"step_time_s", {"training", true}},
      {"time_to_train_s", {"training", true}},
      // The load model's figures take the throughput band through the model itself
      // (speed/serving_load.cc add_load_bands), not by scaling; their kind names that band.
      {"load_output_tokens_per_s", {"throughput", false}},
      {"load_capacity_requests_per_s", {"throughput", false}},
      {"max_requests_per_s", {"throughput", false}},
      {"load_tpot_ms", {"throughput", true}},
      {"load_tpot_mean_ms", {"throughput", true}},
      {"load_ttft_ms", {"throughput", true}},
      {"load_ttft_mean_ms", {"throughput", true}},
  };
  for (const auto& [name, kind] : kKinds)
    if (name == figure) return kind;
  return std::nullopt;
}

std::pair<double, double> band_of(double value, const FigureKind& kind, const SpeedBand& band) {
  if (kind.is_time) return {value * (1 + band.low_error), value * (1 + band.high_error)};
  return {value / (1 + band.high_error), value / (1 + band.low_error)};
}

SpeedBands read_speed_bands(const nlohmann::json& doc, const std::string& file) {
  if (!doc.is_object()) throw InputError(file, "must be a JSON object", "bad_file");
  data::reject_unknown_keys(doc, file, {"source", "date", "bands"});
  SpeedBands out;
  auto text = [&](const nlohmann::json& obj, const char* key, const std::string& where) {
    if (!obj.contains(key) || !obj[key].is_string())
      throw InputError(where + "." + key, "must be a string", "bad_file");
    return obj[key].get<std::string>();
  };
  out.source = text(doc, "source", file);
  out.date = text(doc, "date", file);
  if (!doc.contains("bands") || !doc["bands"].is_array())
    throw InputError(file + ".bands", "must be a list", "bad_file");
  for (size_t i = 0; i < doc["bands"].size(); ++i) {
    const nlohmann::json& b = doc["bands"][i];
    const std::string where = file + ".bands[" + std::to_string(i) + "]";
    if (!b.is_object()) throw InputError(where, "must be an object", "bad_file");
    data::reject_unknown_keys(b, where, {"kind", "engine", "low_error", "high_error", "n"});
    SpeedBand band;
    band.kind = text(b, "kind", where);
    band.engine = text(b, "engine", where);
    // A rate error of -1 would put the measured value at infinity.
    band.low_error = data::required_number(b, "low_error", where, -0.95, 10);
    band.high_error = data::required_number(b, "high_error", where, -0.95, 10);
    band.n = static_cast<int>(data::required_number(b, "n", where, 1, 1e6));
    if (band.low_error > band.high_error)
      throw InputError(where + ".low_error", "must not exceed high_error", "bad_file");
    out.bands_.push_back(std::move(band));
  }
  return out;
}

nlohmann::json to_json(const SpeedBands& bands) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& b : bands.bands_)
    list.push_back({{"kind", b.kind},
                    {"engine", b.engine},
                    {"low_error", b.low_error},
                    {"high_error", b.high_error},
                    {"n", b.n}});
  return {{"source", bands.source}, {"date", bands.date}, {"bands", list}};
}

namespace {

// a == b for the bands' short names (kinds and engines of 4 to 16 bytes): two words of each
// compared, the first and the last, overlapping when shorter than two, instead of a call to
// memcmp (issue 18: a few calls each search, several searches an estimate).
[[gnu::always_inline]] inline bool same_name(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const auto words_equal = [&]<typename Word>(Word) {
    Word a_first, b_first, a_last, b_last;
    std::memcpy(&a_first, a.data(), sizeof(Word));
    std::memcpy(&b_first, b.data(), sizeof(Word));
    std::memcpy(&a_last, a.data() + n - sizeof(Word), sizeof(Word));
    std::memcpy(&b_last, b.data() + n - sizeof(Word), sizeof(Word));
    return ((a_first ^ b_first) | (a_last ^ b_last)) == 0;
  };
  if (n >= 8 && n <= 16) return words_equal(uint64_t{});
  if (n >= 4 && n < 8) return words_equal(uint32_t{});
  return a == b;
}

}  // namespace

const SpeedBand* SpeedBands::find(std::string_view kind, std::string_view engine, bool moe) const {
  // One pass over the bands (issue 18: a mixture-of-experts model's search scanned them twice,
  // and each compare with "*" measured a C string). The first band named for the engine wins, else
  // the last one of every engine; for a mixture-of-experts model a "/moe" band ranks before every
  // dense band: "ENGINE/moe", "*/moe", then the dense rules.
  const auto every_engine = [](std::string_view e) { return e.size() == 1 && e[0] == '*'; };
  const SpeedBand *any = nullptr, *named_dense = nullptr, *any_moe = nullptr;
  for (const auto& b : bands_) {
    if (!same_name(b.kind, kind)) continue;
    const std::string_view band_engine = b.engine;
    if (moe && band_engine.ends_with("/moe")) {
      const std::string_view named = band_engine.substr(0, band_engine.size() - 4);
      if (same_name(named, engine)) return &b;
      if (every_engine(named)) any_moe = &b;
    }
    if (same_name(band_engine, engine)) {
      if (!moe) return &b;
      if (!named_dense) named_dense = &b;
    }
    if (every_engine(band_engine)) any = &b;
  }
  if (any_moe) return any_moe;
  return named_dense ? named_dense : any;
}

}  // namespace gpusizer
