// Tables and markdown for the advisor's answers: recommendation, reverse fit, buyer's report.
// Built from the JSON so the CLI and the server show the same numbers.
#include <fmt/format.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "gpusizer/json/render.h"
#include "gpusizer/units.h"

namespace gpusizer {
namespace {

double num(const nlohmann::json& j, const char* key, double fallback = 0) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string cell(const nlohmann::json& j, const char* key, const char* fmt_spec, double scale = 1) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return "-";
  return fmt::format(fmt::runtime(fmt_spec), j[key].get<double>() * scale);
}

// A member of an object, or an empty object (a const json's operator[] asserts on a missing key).
const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNone = nlohmann::json::object();
  if (!j.is_object()) return kNone;
  const auto it = j.find(key);
  return it != j.end() ? *it : kNone;
}

// An option's layout in a table cell: the splits, ZeRO stage and checkpointing, and for training
// the micro-batch and its accumulation steps, so that options differing only there are told
// apart.
std::string parallel_words(const nlohmann::json& option) {
  const nlohmann::json& p = member(option, "parallel");
  auto count = [&](const char* key) { return p.is_object() ? p.value(key, int64_t{1}) : 1; };
  std::string s;
  if (count("tp") > 1) s += fmt::format("TP{} ", count("tp"));
  if (count("pp") > 1) s += fmt::format("PP{} ", count("pp"));
  if (count("pp") > 1 && count("pp_interleave") > 1)
    s += fmt::format("VPP{} ", count("pp_interleave"));
  if (count("ep") > 1) s += fmt::format("EP{} ", count("ep"));
  if (count("cp") > 1) s += fmt::format("CP{} ", count("cp"));
  if (count("dp") > 1) s += fmt::format("DP{} ", count("dp"));
  if (p.is_object() && p.value("sequence_parallel", false)) s += "SP ";
  if (p.is_object() && p.value("zero_stage", 0) > 0)
    s += fmt::format("Z{} ", p.value("zero_stage", 0));
  if (p.is_object() && p.value("gradient_checkpointing", false)) s += "GC ";
  const nlohmann::json& sc = member(member(option, "estimate"), "scenario");
  if (sc.value("task", "inference") != "inference") {
    s += fmt::format("MB{} ", sc.value("batch", int64_t{1}));
    const int64_t accumulation = member(sc, "training").value("grad_accum", int64_t{1});
    if (accumulation > 1) s += fmt::format("GA{} ", accumulation);
  }
  if (s.empty()) return "-";
  s.pop_back();
  return s;
}

// A table's own labels in the asked language (the templates of data/lang/zh.json, lang.h).
struct Localizer {
  Lang lang;
  std::string operator()(std::string_view english) const { return translate_text(english, lang); }
  std::string comma() const { return lang == Lang::kZh ? "，" : ", "; }
};

// Columns a terminal gives a UTF-8 text: two for East Asian wide characters (Unicode UAX #11,
// the CJK ranges), one for the others, so Chinese labels line up with the figures under them.
size_t display_width(std::string_view s) {
  size_t width = 0;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1 ? c : c & (0x3F >> (len - 1));
    for (size_t k = 1; k < len && i + k < s.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
    width += wide ? 2 : 1;
    i += len;
  }
  return width;
}

std::string table(const std::vector<std::string>& head,
                  const std::vector<std::vector<std::string>>& rows, bool markdown) {
  std::vector<size_t> w(head.size());
  for (size_t i = 0; i < head.size(); ++i) w[i] = display_width(head[i]);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size() && i < w.size(); ++i)
      w[i] = std::max(w[i], display_width(r[i]));
  std::string out;
  auto line = [&](const std::vector<std::string>& r) {
    if (markdown) out += "|";
    for (size_t i = 0; i < w.size(); ++i) {
      const std::string v = i < r.size() ? r[i] : "";
      const size_t pad = w[i] - display_width(v);
      out += markdown ? " " + v + std::string(pad, ' ') + " |" : v + std::string(pad + 2, ' ');
    }
    out += "\n";
  };
  line(head);
  if (markdown) {
    out += "|";
    for (size_t i = 0; i < w.size(); ++i) out += std::string(w[i] + 2, '-') + "|";
    out += "\n";
  }
  for (const auto& r : rows) line(r);
  return out;
}

// The option's machines: "2 x p5.48xlarge" in the cloud, "3 nodes, 1 rack" on-prem, with the
// replicas of a serving fleet.
std::string fleet_words(const nlohmann::json& o, const Localizer& L) {
  std::vector<std::string> parts;
  if (o.contains("instance") && o["instance"].is_object())
    parts.push_back(fmt::format("{} x {}", o["instance"].value("count", 1),
                                o["instance"].value("name", std::string())));
  else if (o.contains("nodes"))
    parts.push_back(
        L(fmt::format("{} node{}", o.value("nodes", 1), o.value("nodes", 1) > 1 ? "s" : "")));
  if (o.contains("racks"))
    parts.push_back(
        L(fmt::format("{} rack{}", o.value("racks", 1), o.value("racks", 1) > 1 ? "s" : "")));
  if (o.value("replicas", 1) > 1)
    parts.push_back(L(fmt::format("{} replicas", o.value("replicas", 1))));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : L.comma()) + p;
  return out.empty() ? "-" : out;
}

// The engine of a training option's estimate, with a space; "" for serving. Training plans
// choose among engines when the request names none (docs/advisor.md), so the cell says which.
std::string training_engine(const nlohmann::json& option) {
  const nlohmann::json& sc = member(member(option, "estimate"), "scenario");
  if (!sc.is_object() || sc.value("task", "inference") == "inference") return "";
  const std::string engine = sc.value("engine", std::string());
  return engine.empty() ? engine : engine + " ";
}

std::string options_table(const nlohmann::json& rec, bool markdown, size_t limit,
                          const Localizer& L) {
  std::vector<std::vector<std::string>> rows;
  size_t i = 0;
  for (const auto& o : rec["options"]) {
    if (i++ >= limit) break;
    const auto& e = o["estimate"];
    const auto& perf = e.value("performance", nlohmann::json::object());
    std::string speed = perf.contains("max_output_tokens_per_s")
                            ? cell(perf, "max_output_tokens_per_s", "{:.0f} tok/s")
                            : cell(perf, "train_tokens_per_s", "{:.0f} tok/s");
    rows.push_back({std::to_string(i), o.value("gpu", ""), std::to_string(o.value("gpu_count", 1)),
                    o.value("weights", ""), training_engine(o) + parallel_words(o),
                    fmt::format("{:.0f}%", num(o, "headroom") * 100), speed,
                    cell(o, "fleet_usd_per_hour", "${:.2f}"), fleet_words(o, L),
                    o["objective_value"].is_number()
                        ? fmt::format("{:.4g}", o["objective_value"].get<double>())
                        : "-",
                    cell(e["power"], "node_watts", "{:.1f} kW", 1e-3), o.value("binding", "-"),
                    fmt::format("{:.0f}", num(o, "score"))});
  }
  return table({"#", "GPU", L("n"), L("weights"), L("parallel"), L("headroom"), L("throughput"),
                L("fleet $/h"), L("machines"), L("objective"), L("node"), L("binding"), L("score")},
               rows, markdown);
}

std::string changes_list(const nlohmann::json& changes, bool markdown, const Localizer& L) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : changes)
    rows.push_back({c.value("change", ""), L(c.value("fits", false) ? "yes" : "no"),
                    fmt::format("{:.1f}", num(c, "saves_bytes") / kGiB),
                    cell(c, "speed_factor", "x{:.2f}"), c.value("cost", "")});
  return table({L("change"), L("fits"), L("saves GiB"), L("speed"), L("cost")}, rows, markdown);
}

// The first options' reasons and warnings, in the order they rank.
std::string reasons_text(const nlohmann::json& rec, bool markdown, const Localizer& L) {
  std::string out;
  size_t i = 0;
  for (const auto& o : rec["options"]) {
    if (i++ >= 5) break;
    out += fmt::format("\n{}{}. {} x {} ({})\n", markdown ? "**" : "", i, o.value("gpu_count", 1),
                       o.value("gpu_name", o.value("gpu", "")), o.value("weights", "")) +
           (markdown ? "**\n" : "");
    for (const auto& r : o["reasons"]) out += "  - " + r.get<std::string>() + "\n";
    for (const auto& w : o["warnings"])
      out += "  - " + L("warning:") + " " + w.get<std::string>() + "\n";
  }
  return out;
}

}  // namespace

// The objective under the table. Each option is priced at the cheaper of renting and owning
// (docs/advisor.md), so the listed options may stand on different bases: then the metric is named
// without its basis, and each option's own basis is in its reasons.
std::string objective_words(const nlohmann::json& options, size_t limit, const Localizer& L) {
  const std::string first = options[0].value("objective_basis", std::string());
  bool mixed = false;
  for (size_t i = 1; i < options.size() && i < limit; ++i)
    mixed |= options[i].value("objective_basis", std::string()) != first;
  // The basis is the last parenthesis (full-width once translated into Chinese).
  size_t basis = first.rfind(" (");
  if (basis == std::string::npos) basis = first.rfind("\xEF\xBC\x88");  // U+FF08
  if (!mixed || basis == std::string::npos)
    return L(fmt::format("objective: {} (lower is better)", first));
  return L(fmt::format(
      "objective: {} (lower is better), each option at the cheaper of renting and owning",
      first.substr(0, basis)));
}

std::string render_recommendation(const nlohmann::json& rec, bool markdown, Lang lang) {
  const Localizer L{lang};
  std::string out = (markdown ? "### " : "") +
                    L(fmt::format("Options, best first by {} (memory kept free: {:.0f}%)",
                                  rec.value("objective", "cost"), num(rec, "headroom") * 100)) +
                    "\n\n";
  if (rec["options"].empty()) {
    out += L("No GPU in the catalog fits with these constraints.") + "\n";
  } else {
    out += options_table(rec, markdown, 20, L);
    out += objective_words(rec["options"], 20, L) + "\n";
  }
  out += reasons_text(rec, markdown, L);
  // Advice on the request as a whole, before the long list of what was rejected.
  if (auto notes = rec.find("notes"); notes != rec.end() && !notes->empty()) {
    out += "\n" + std::string(markdown ? "### " : "") + L("Notes") + "\n";
    for (const auto& n : *notes) out += "  - " + n.get<std::string>() + "\n";
  }
  if (!rec["rejected"].empty()) {
    out += "\n" + std::string(markdown ? "### " : "") + L("Rejected") + "\n";
    for (const auto& r : rec["rejected"]) out += "  - " + r.value("why", "") + "\n";
  }
  if (!rec["changes"].empty()) {
    out += "\n" + std::string(markdown ? "### " : "") +
           L(fmt::format("What to change so it fits ({})", rec.value("changes_for", ""))) + "\n\n";
    out += changes_list(rec["changes"], markdown, L);
  }
  return out;
}

std::string render_fit(const nlohmann::json& fit, bool markdown, Lang lang) {
  const Localizer L{lang};
  std::string out = (markdown ? "### " : "") +
                    L(fmt::format("Largest models for {} on {} x {}", fit.value("task", ""),
                                  fit.value("gpu_count", 1), fit.value("gpu", ""))) +
                    "\n\n";
  if (auto it = fit.find("levers"); it != fit.end() && it->is_array() && !it->empty()) {
    std::string names;
    for (const auto& l : *it) names += (names.empty() ? "" : ", ") + l.get<std::string>();
    out +=
        L(fmt::format("With the levers standard for the task: {} (--no-levers: without)", names)) +
        "\n\n";
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : fit["models"])
    rows.push_back({m.value("model", ""), fmt::format("{:.2f}B", num(m, "params") / 1e9),
                    m.value("weights", fit.value("weights", "")),
                    std::to_string(m.value("max_seq_len", 0)),
                    std::to_string(m.value("max_batch", 0))});
  if (const auto named = fit.find("named"); named != fit.end()) {
    const std::string id = named->value("model", "");
    out += named->value("fits", false)
               ? L(fmt::format("{}: context up to {} tokens, batch up to {}", id,
                               named->value("max_seq_len", 0), named->value("max_batch", 0)))
               : L(fmt::format("{} does not fit at the context and batch asked.", id));
    out += "\n\n";
  }
  if (rows.empty()) return out + L("No catalog model fits.") + "\n";
  return out + table({L("model"), L("params"), L("weights"), L("max context"), L("max batch")},
                     rows, markdown);
}

namespace {

// The buyer's report, section by section (render_report_markdown joins them).
std::string report_scenario(const nlohmann::json& r, const Localizer& L) {
  const auto& m = r["model"];
  std::string out =
      "# " +
      L(fmt::format("GPU purchase request: {} ({})", m.value("name", ""), r.value("task", ""))) +
      "\n\n## " + L("1. Model and scenario") + "\n\n";
  out += "- " +
         L(fmt::format("Model: {} — {:.2f}B parameters ({:.2f}B active per token)",
                       m.value("id", ""), num(m, "params") / 1e9, num(m, "active_params") / 1e9)) +
         "\n";
  out += "- " +
         L(fmt::format("Job: {}; batch (concurrency) {} x {} tokens", r.value("task", ""),
                       r.value("batch", 1), r.value("seq_len", 0))) +
         "\n";
  return out;
}

std::string report_memory(const nlohmann::json& mem, const Localizer& L) {
  std::string out =
      "\n## " + L("2. Memory per GPU (recommended system, GiB = 2^30 bytes)") + "\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const char* k : {"weights_bytes", "kv_cache_bytes", "activations_bytes", "gradients_bytes",
                        "optimizer_bytes", "master_weights_bytes", "overhead_bytes", "total_bytes",
                        "gpu_capacity_bytes"})
    if (num(mem, k) > 0)
      rows.push_back({std::string(k).substr(0, std::string(k).size() - 6),
                      fmt::format("{:.2f}", num(mem, k) / kGiB)});
  return out + table({L("component"), "GiB"}, rows, true);
}

std::string report_options(const nlohmann::json& rec, const Localizer& L) {
  std::string out =
      "\n## " +
      L(fmt::format("3. Options (best first by {})", rec.value("objective", std::string("cost")))) +
      "\n\n";
  out += options_table(rec, true, 5, L);
  out += "\n" + L("Why the first option:") + "\n";
  for (const auto& x : rec["options"][0]["reasons"]) out += "- " + x.get<std::string>() + "\n";
  return out;
}

// "owning wins above 62% utilization, paying back in 37 months"; a break-even above 100% is never
// reached, and a payback past the amortization life is no payback: both are said so.
std::string break_even_line(const nlohmann::json& own, const Localizer& L) {
  const auto& b = own["break_even"];
  if (b.contains("utilization") && num(b, "utilization") >= 1.0)
    return "- " +
           L("Break-even: never; owning would cost more than renting even busy around the clock") +
           "\n";
  if (!b.contains("utilization")) return "";
  const double life_months =
      12.0 * num(own.value("assumptions", nlohmann::json::object()), "amortization_years");
  const double months = num(b, "months");
  const double u = num(b, "utilization") * 100;
  if (!b.contains("months"))
    return "- " + L(fmt::format("Break-even: owning wins above {:.0f}% utilization", u)) + "\n";
  if (life_months > 0 && months > life_months)
    return "- " +
           L(fmt::format("Break-even: owning wins above {:.0f}% utilization; at the assumed "
                         "utilization it would take {:.0f} months, past the {:.0f}-month life, so "
                         "it does not pay back",
                         u, months, life_months)) +
           "\n";
  return "- " +
         L(fmt::format("Break-even: owning wins above {:.0f}% utilization, paying back in {:.0f} "
                       "months",
                       u, months)) +
         "\n";
}

std::string report_ownership(const nlohmann::json& own, const Localizer& L) {
  std::string out = "\n## " + L("4. Cloud vs on-prem (recommended system)") + "\n\n";
  if (own.contains("cloud")) {
    const auto& c = own["cloud"];
    std::string line =
        L(fmt::format("Cloud: ${:.2f}/hour ({}, price of {})", num(c, "usd_per_hour"),
                      c.value("instance", ""), c.value("price_date", "")));
    if (c.contains("usd_per_million_tokens"))
      line += L(fmt::format("; ${:.3f} per million tokens", num(c, "usd_per_million_tokens")));
    if (c.contains("usd_per_run"))
      line += L(fmt::format("; ${:.0f} per training run", num(c, "usd_per_run")));
    out += "- " + line + "\n";
  } else {
    out += "- " + L("Cloud: no cloud price for this GPU in the catalog") + "\n";
  }
  if (own.contains("on_prem")) {
    const auto& p = own["on_prem"];
    out += "- " +
           L(fmt::format("On-prem: ${:.0f} (¥{:.0f}) up front (GPUs ${:.0f} + servers ${:.0f}); "
                         "${:.2f}/hour of use amortized; energy ${:.2f}/hour while running",
                         num(p, "capex_usd"), num(p, "capex_cny"), num(p, "gpus_usd"),
                         num(p, "servers_usd"), num(p, "usd_per_hour"),
                         num(p, "energy_usd_per_hour"))) +
           "\n";
  } else {
    out += "- " + L("On-prem: no purchase price for this GPU in the catalog") + "\n";
  }
  if (own.contains("break_even"))
    out += break_even_line(own, L) + "- " + L("Verdict:") + " " +
           own["break_even"].value("verdict", "") + "\n";
  return out;
}

std::string report_power(const nlohmann::json& p, const Localizer& L) {
  std::string out = "\n## " + L("5. Power and machine room") + "\n\n";
  out +=
      "- " +
      L(fmt::format("{} node(s); {:.2f} kW per node with margin ({:.2f} kW peak); fleet {:.2f} kW",
                    static_cast<int64_t>(num(p, "nodes", 1)), num(p, "node_watts") / 1000,
                    num(p, "node_peak_watts") / 1000, num(p, "fleet_watts") / 1000)) +
      "\n";
  out += "- " +
         L(fmt::format("Cooling {:.0f} BTU/h; UPS at least {:.1f} kVA; about {:.0f} kWh a year at "
                       "the facility meter",
                       num(p, "btu_per_hour"), num(p, "ups_kva"), num(p, "annual_kwh"))) +
         "\n";
  out += "- " +
         L(fmt::format("Rack budget {:.1f} kW per rack", num(p, "rack_budget_watts") / 1000)) +
         "\n";
  return out;
}

std::string report_risks(const nlohmann::json& best, const Localizer& L) {
  std::string out = "\n## " + L("6. Risks") + "\n\n";
  for (const auto& w : best["warnings"]) out += "- " + w.get<std::string>() + "\n";
  if (best["warnings"].empty()) out += "- " + L("none flagged for the recommended system") + "\n";
  return out;
}

std::string report_rejected(const nlohmann::json& rejected, const Localizer& L) {
  std::string out = "\n## " + L("7. Rejected GPUs") + "\n\n";
  size_t i = 0;
  for (const auto& x : rejected) {
    if (i++ >= 25) {
      out += "- " + L(fmt::format("... and {} more (see the JSON)", rejected.size() - 25)) + "\n";
      break;
    }
    out += "- " + x.value("why", "") + "\n";
  }
  return out;
}

}  // namespace

std::string render_report_markdown(const nlohmann::json& r, Lang lang) {
  const Localizer L{lang};
  const auto& rec = r["recommendation"];
  std::string out = report_scenario(r, L);
  if (rec["options"].empty()) {
    out +=
        "\n**" + L("No GPU in the catalog fits.") + "** " + L("See what to change below.") + "\n";
  } else {
    const auto& best = rec["options"][0];
    const auto& e = best["estimate"];
    out += report_memory(e["memory"], L) + report_options(rec, L) +
           report_ownership(e["cost"].value("ownership", nlohmann::json::object()), L) +
           report_power(e["power"], L) + report_risks(best, L);
  }
  if (auto notes = rec.find("notes"); notes != rec.end())
    for (const auto& n : *notes) out += "\n> " + n.get<std::string>() + "\n";
  if (!rec["rejected"].empty()) out += report_rejected(rec["rejected"], L);
  if (!rec["changes"].empty()) {
    out += "\n## " +
           L(fmt::format("8. What to change so it fits ({})",
                         rec.value("changes_for", std::string()))) +
           "\n\n";
    out += changes_list(rec["changes"], true, L);
  }
  out += "\n*" +
         L("Figures from gpusizer (docs/method.md); prices and defaults from data/gpus.csv and "
           "data/costs.json with their dates.") +
         "*\n";
  return out;
}

}  // namespace gpusizer
