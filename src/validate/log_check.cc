#include "gpusizer/json/log_check.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "gpusizer/error.h"
#include "gpusizer/json/api.h"

namespace gpusizer {
namespace {

using json = nlohmann::json;

struct Counterpart {
  const char* key;
  const char* component;
  const char* pointer;  ///< in the estimate JSON; empty: computed or none
  const char* unit;     ///< "bytes", "tokens", "x", "tokens/s", "ms", "s"
};

// What each log figure is compared with (docs/contract.md "Estimate"): engine non-torch memory is
// the estimate's overhead (memory outside the framework's allocator); a preallocating engine's
// KV pool is kv_cache_bytes and its tokens kv_cache_capacity_tokens; vLLM's maximum concurrency
// is those tokens over max_model_len (v1/core/kv_cache_utils.py).
const std::vector<Counterpart>& counterparts() {
  static const std::vector<Counterpart> c = {
      {"weights_bytes", "weights", "/memory/weights_bytes", "bytes"},
      {"non_torch_bytes", "non-torch", "/memory/overhead_bytes", "bytes"},
      {"activation_peak_bytes", "activation peak", "/memory/activations_bytes", "bytes"},
      {"kv_cache_bytes", "KV cache bytes", "/memory/kv_cache_bytes", "bytes"},
      {"kv_cache_tokens", "KV cache tokens", "/memory/kv_cache_capacity_tokens", "tokens"},
      {"max_concurrency", "max concurrency", "", "x"},
      {"prefill_tokens_per_s", "prefill t/s", "/performance/prefill_tokens_per_s", "tokens/s"},
      {"decode_tokens_per_s", "decode t/s", "/performance/decode_tokens_per_s", "tokens/s"},
      {"max_output_tokens_per_s", "max output t/s", "/performance/max_output_tokens_per_s",
       "tokens/s"},
      {"offline_output_tokens_per_s", "offline output t/s",
       "/performance/offline_output_tokens_per_s", "tokens/s"},
      {"ttft_ms", "TTFT", "/performance/ttft_ms", "ms"},
      {"tpot_ms", "TPOT", "/performance/tpot_ms", "ms"},
      {"train_tokens_per_s", "train t/s", "/performance/train_tokens_per_s", "tokens/s"},
      {"train_tokens_per_s_per_gpu", "train t/s/GPU", "/performance/train_tokens_per_s_per_gpu",
       "tokens/s"},
      {"step_time_s", "step time", "/performance/step_time_s", "s"},
      {"weights_cpu_bytes", "weights in host RAM", "", "bytes"},
      {"gpu_blocks", "GPU blocks", "", "blocks"},
      {"pp_tg_tokens_per_s", "pp+tg t/s", "", "tokens/s"},
  };
  return c;
}

const Counterpart* counterpart(const std::string& key) {
  for (const auto& c : counterparts())
    if (key == c.key) return &c;
  return nullptr;
}

bool is_speed(const std::string& key) {
  const Counterpart* c = counterpart(key);
  return c && std::string_view(c->pointer).starts_with("/performance/");
}

std::optional<double> number_at(const json& j, const char* pointer) {
  const json::json_pointer p(pointer);
  if (!j.contains(p) || !j.at(p).is_number()) return std::nullopt;
  return j.at(p).get<double>();
}

// llama.cpp prints the sum over the devices the layers are split over; the estimate is per GPU.
double per_log_scale(const json& scenario, const std::string& source, const std::string& unit) {
  if (source != "llama.cpp" || unit != "bytes") return 1.0;
  return scenario.contains("gpu_count") && scenario["gpu_count"].is_number()
             ? scenario["gpu_count"].get<double>()
             : 1.0;
}

std::string show(double v, const std::string& unit) {
  if (unit == "bytes") return fmt::format("{:.2f} GiB", v / (1024.0 * 1024 * 1024));
  if (unit == "tokens" || unit == "blocks") return fmt::format("{:.0f}", v);
  if (unit == "x") return fmt::format("{:.2f}x", v);
  return fmt::format("{:.1f} {}", v, unit);
}

// " (range)" after a release's name, or nothing for a release without a range.
std::string in_parens(const std::string& text) {
  return text.empty() ? "" : " (" + text + ")";
}

// Every release's range, oldest first: "0.6.4.x, 0.6.5.x, 0.7-0.8.x, ...".
std::string ranges_text(const EngineProfile& engine) {
  std::string out;
  for (auto r = engine.releases.rbegin(); r != engine.releases.rend(); ++r)
    if (const std::string t = r->range_text(); !t.empty()) out += (out.empty() ? "" : ", ") + t;
  return out;
}

// The oldest release of `path` (engines.json engine_path) newer than release `at` (releases are
// newest first); nullopt when `at` is of that path or newer than all of its releases.
std::optional<size_t> oldest_of_path(const EngineProfile& engine, size_t at,
                                     const std::string& path) {
  const auto& rs = engine.releases;
  if (rs[at].engine_path == path) return std::nullopt;
  for (size_t i = rs.size(); i-- > 0;)
    if (rs[i].engine_path == path) return i < at ? std::optional<size_t>(i) : std::nullopt;
  return std::nullopt;
}

// A log states a version, not a release (docs/stores-and-logs.md "check"). The release whose
// engines.json range covers it applies, as for any scenario (EngineProfile::release), with two
// exceptions, both said in a note. A version no release covers is checked with the newest
// release: the log's figures are still worth comparing, where a scenario's unknown version is an
// error. A log that names its engine path (vLLM's "Initializing a V1 LLM engine (v0.8.5)") is
// checked with a release of that path: V1 ran beside V0 in 0.7-0.8, whose versions only the V0
// release 0.7 covers, and V1 profiles by its own gpu_worker.py, so such a log takes the oldest V1
// release. A figures file's engine_version is the user's scenario and is left to the estimate.
void map_log_version(const LogRun& run, const Catalog& catalog, json& scenario, json& notes) {
  const json& logged_json = run.scenario.value("engine_version", json());
  if (run.source == "figures" || !logged_json.is_string() || !scenario.contains("engine") ||
      !scenario["engine"].is_string())
    return;
  const EngineProfile* engine = nullptr;
  try {
    engine = &catalog.engine(scenario["engine"].get<std::string>());
  } catch (const InputError&) {
    return;  // the estimate says why
  }
  const std::string logged = logged_json.get<std::string>();
  const std::string name = engine->name + " " + logged;
  if (!run.engine_version_inferred_from.empty())
    notes.push_back(fmt::format("the log states no {} version: {} inferred from {}", engine->name,
                                logged, run.engine_version_inferred_from));
  std::optional<size_t> at;
  try {
    at = static_cast<size_t>(&engine->release(logged) - engine->releases.data());
  } catch (const InputError&) {
  }
  const auto& rs = engine->releases;
  std::string note;
  if (!at) {
    at = 0;
    note =
        fmt::format("the log's {} is outside the releases modelled ({}); checked with release {}",
                    name, ranges_text(*engine), rs[0].version);
  } else if (*at == 0 && engine->newer_than_modelled(logged)) {
    note =
        fmt::format("the log's {} is newer than the releases modelled; checked with release {}{}",
                    name, rs[0].version, in_parens(rs[0].range_text()));
  } else if (const auto path = run.engine_path.empty()
                                   ? std::nullopt
                                   : oldest_of_path(*engine, *at, run.engine_path)) {
    note = fmt::format(
        "the log's {} runs the {} engine, which release {}{} does not model: checked with "
        "release {}, the oldest {} release",
        name, run.engine_path, rs[*at].version, in_parens(rs[*at].range_text()), rs[*path].version,
        run.engine_path);
    at = path;
  } else if (rs[*at].version != logged) {
    note = fmt::format("the log's {} is checked with release {}{}", name, rs[*at].version,
                       in_parens(rs[*at].range_text()));
  }
  scenario["engine_version"] = rs[*at].version;
  if (!note.empty()) notes.push_back(note);
}

}  // namespace

json run_scenario(const LogRun& run, const json& flags) {
  json s = flags.is_object() ? flags : json::object();
  for (const auto& [k, v] : run.scenario.items()) {
    if (k == "parallel" && v.is_object())
      for (const auto& [pk, pv] : v.items()) s["parallel"][pk] = pv;
    else
      s[k] = v;
  }
  return s;
}

json check_log(const LogReading& log, const json& flags, const Catalog& catalog) {
  json out = {{"format", log.format}, {"runs", json::array()}};
  for (size_t i = 0; i < log.runs.size(); ++i) {
    const LogRun& run = log.runs[i];
    json scenario = run_scenario(run, flags);
    json notes = json::array();
    map_log_version(run, catalog, scenario, notes);
    json estimate;
    std::string error;
    for (int attempt = 0; attempt < 3; ++attempt) {
      try {
        estimate = estimate_json(scenario, catalog);
        error.clear();
        break;
      } catch (const InputError& e) {
        error = e.what();
        // The log's name for the model or GPU may not be one gpusizer knows: a flag gives it.
        const std::string field = e.field();
        const std::string key = field == "model" ? "model" : field == "gpu" ? "gpu" : "";
        if (key.empty() || !flags.contains(key) || scenario[key] == flags[key]) break;
        notes.push_back(fmt::format("the log's {} '{}' is not known here; used --{} {}", key,
                                    scenario[key].dump(), key, flags[key].dump()));
        scenario[key] = flags[key];
      }
    }
    json rows = json::array();
    for (const LogFigure& f : run.figures) {
      const Counterpart* c = counterpart(f.key);
      json row = {{"key", f.key},
                  {"component", c ? c->component : f.key},
                  {"unit", c ? c->unit : ""},
                  {"log", f.value},
                  {"estimate", nullptr},
                  {"rel_error", nullptr},
                  {"line", f.line},
                  {"text", f.text},
                  {"repeats", f.repeats},
                  {"derived", f.derived}};
      std::optional<double> est;
      if (error.empty() && c) {
        if (f.key == "max_concurrency") {
          const auto tokens = number_at(estimate, "/memory/kv_cache_capacity_tokens");
          const auto len = number_at(estimate, "/scenario/seq_len");
          if (tokens && len && *len > 0) est = *tokens / *len;
        } else if (*c->pointer != '\0') {
          est = number_at(estimate, c->pointer);
        }
        if (est) *est *= per_log_scale(scenario, run.source, c->unit);
      }
      if (est) {
        row["estimate"] = *est;
        row["rel_error"] = *est / f.value - 1.0;
      } else {
        row["note"] = !error.empty() ? "not estimated"
                      : c && *c->pointer == '\0' && f.key != "max_concurrency"
                          ? "no estimate counterpart"
                          : "the estimate has no figure for this scenario";
      }
      rows.push_back(std::move(row));
    }
    json r = {{"source", run.source},
              {"label", run.label},
              {"scenario", scenario},
              {"notes", notes},
              {"rows", rows}};
    if (!error.empty()) r["error"] = error;
    out["runs"].push_back(std::move(r));
  }
  return out;
}

std::string render_check(const json& check, bool markdown) {
  std::string out;
  int n = 0;
  for (const auto& r : check["runs"]) {
    const json& s = r["scenario"];
    auto get = [&](const char* k) { return s.contains(k) ? s[k].dump() : std::string("-"); };
    out += fmt::format(
        "{}run {} ({}{}): model {}, gpu {}, engine {} {}, seq_len {}\n", markdown ? "### " : "",
        ++n, r["source"].get<std::string>(),
        r["label"].get<std::string>().empty() ? "" : ", " + r["label"].get<std::string>(),
        get("model"), get("gpu"), get("engine"),
        s.contains("engine_version") ? "release " + s["engine_version"].get<std::string>() : "",
        get("seq_len"));
    if (markdown) out += "\n";
    for (const auto& note : r["notes"]) out += "  note: " + note.get<std::string>() + "\n";
    if (r.contains("error")) out += "  not estimated: " + r["error"].get<std::string>() + "\n";
    out += markdown ? "| component | log | estimate | error | line |\n|---|---:|---:|---:|---|\n"
                    : fmt::format("  {:<22}{:>17}{:>17}{:>9}  {}\n", "component", "log", "estimate",
                                  "error", "from");
    for (const auto& row : r["rows"]) {
      const std::string unit = row["unit"].get<std::string>();
      const std::string log = show(row["log"].get<double>(), unit);
      const std::string est =
          row["estimate"].is_null() ? "-" : show(row["estimate"].get<double>(), unit);
      const std::string err = row["rel_error"].is_null()
                                  ? "-"
                                  : fmt::format("{:+.1f}%", 100 * row["rel_error"].get<double>());
      std::string from = row["line"].get<int>() > 0
                             ? "line " + std::to_string(row["line"].get<int>())
                             : row["derived"].get<std::string>();
      if (row["repeats"].get<int>() > 1) from += fmt::format(" (x{})", row["repeats"].get<int>());
      if (!row["derived"].get<std::string>().empty() && row["line"].get<int>() > 0)
        from += ", " + row["derived"].get<std::string>();
      if (row.contains("note")) from += "; " + row["note"].get<std::string>();
      out += markdown ? fmt::format("| {} | {} | {} | {} | {} |\n",
                                    row["component"].get<std::string>(), log, est, err, from)
                      : fmt::format("  {:<22}{:>17}{:>17}{:>9}  {}\n",
                                    row["component"].get<std::string>(), log, est, err, from);
    }
    out += "\n";
  }
  out += "error = estimate / log - 1; memory per GPU (llama.cpp: over its devices)\n";
  return out;
}

std::vector<SpeedCase> speed_cases_from_log(const LogReading& log, const json& flags,
                                            const Catalog& catalog) {
  std::vector<SpeedCase> cases;
  for (size_t i = 0; i < log.runs.size(); ++i) {
    const LogRun& run = log.runs[i];
    // The run's scenario and notes, once for its figures: the logged version mapped to its release
    // as the memory check maps it (a version no release covers is estimated by the newest, not
    // refused, and its note joins the row's).
    json scenario = run_scenario(run, flags);
    json notes = json::array();
    map_log_version(run, catalog, scenario, notes);
    std::string text = run.label;
    for (const auto& n : notes) text += (text.empty() ? "" : "; ") + n.get<std::string>();
    for (const LogFigure& f : run.figures) {
      if (!is_speed(f.key)) continue;
      SpeedCase c;
      c.id = fmt::format("{}-{}-{}", log.format, i + 1, f.key);
      c.group = run.source;
      c.compare = f.key;
      c.measured = f.value;
      c.use = "calibrate";
      c.notes = text;
      c.scenario = scenario;
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace gpusizer
