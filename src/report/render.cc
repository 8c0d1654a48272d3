#include "gpusizer/json/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "gpusizer/units.h"

namespace gpusizer {
namespace {

struct Row {
  const char* key;
  const char* label;
};

// A table's own labels in the asked language (the templates of data/lang/zh.json, lang.h).
struct Localizer {
  Lang lang;
  std::string operator()(std::string_view english) const { return translate_text(english, lang); }
};

std::string fit_line(const nlohmann::json& e, const Localizer& L);
const Row kComponents[] = {{"weights_bytes", "weights"},
                           {"kv_cache_bytes", "KV cache"},
                           {"activations_bytes", "activations"},
                           {"gradients_bytes", "gradients"},
                           {"optimizer_bytes", "optimizer states"},
                           {"master_weights_bytes", "master weights"},
                           {"overhead_bytes", "overhead"}};

double num(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string gib(double bytes) {
  return fmt::format("{:.2f}", bytes / kGiB);
}

std::string bar(double bytes, double capacity, int width) {
  if (capacity <= 0) return "";
  const int n = static_cast<int>(std::lround(std::min(1.0, bytes / capacity) * width));
  std::string s;
  for (int i = 0; i < width; ++i) s += i < n ? "\u2588" : "\u00b7";
  return s;
}

std::string headline(const nlohmann::json& e, const Localizer& L) {
  const nlohmann::json& s = e.value("scenario", nlohmann::json::object());
  std::string h = e["model"].value("id", "") + " (" +
                  L(fmt::format("{:.2f}B params", num(e["model"], "params") / 1e9));
  if (num(e["model"], "active_params") != num(e["model"], "params"))
    h += ", " + L(fmt::format("{:.2f}B active", num(e["model"], "active_params") / 1e9));
  h += ")";
  if (s.is_object() && !s.empty()) {
    h += fmt::format(
        " | {} | {} | {} | {}", s.value("task", ""),
        L(fmt::format("weights {}", s.value("weights", ""))),
        L(fmt::format("batch {} x {} tokens", s.value("batch", 0), s.value("seq_len", 0))),
        s.value("engine", ""));
    if (s.contains("gpu"))
      h += fmt::format(" | {} x {}", s.value("gpu_count", 1), s.value("gpu", ""));
    const auto& p = s["parallel"];
    if (p.value("tp", 1) > 1 || p.value("pp", 1) > 1 || p.value("dp", 1) > 1)
      h +=
          fmt::format(" (tp {} pp {} dp {})", p.value("tp", 1), p.value("pp", 1), p.value("dp", 1));
  }
  return h;
}

// The changes that would make a scenario fit (estimate JSON "changes"), best first.
std::string changes_text(const nlohmann::json& e, bool markdown, const Localizer& L) {
  const auto it = e.find("changes");
  if (it == e.end() || !it->is_array() || it->empty()) return "";
  const std::string title = L("What would make it fit");
  std::string out = markdown ? "\n**" + title + "**\n\n" : "\n" + title + "\n";
  size_t shown = 0;
  for (const auto& c : *it) {
    if (shown++ == 8) break;
    const std::string verdict = c.value("fits", false) ? "fits" : "not enough alone";
    const double saves = num(c, "saves_bytes") / kGiB;
    out += (markdown ? "- " : "  - ") +
           L(fmt::format("{} ({}; saves {:.1f} GiB per GPU): {}", c.value("change", std::string()),
                         verdict, saves, c.value("cost", std::string()))) +
           "\n";
  }
  return out;
}

// A scenario that does not fit has no speed or cost (docs/contract.md, v2): said once, at the top.
std::string top_notes(const nlohmann::json& e, bool markdown, const Localizer& L) {
  std::string out;
  if (auto it = e.find("context_warning"); it != e.end() && it->is_string())
    out += (markdown ? "> **" + L("Warning:") + "** " : L("WARNING:") + " ") +
           it->get<std::string>() + (markdown ? "\n\n" : "\n");
  if (e.value("fits", true) == false)
    out += (markdown ? "> **" + L("Does not fit:") + "** " : L("DOES NOT FIT:") + " ") +
           L("no speed, cost or ownership figures for a setup that does not fit; see what would "
             "make it fit below.") +
           "\n";
  return out.empty() ? out : out + "\n";
}

// A batch line that failed answers {"error": {...}} in its place: rendered as one line.
std::string error_text(const nlohmann::json& e) {
  const auto& err = e["error"];
  if (!err.is_object()) return "error\n";
  return "error (" + err.value("code", std::string()) +
         "): " + err.value("message", std::string()) + "\n";
}

// The memory part of the table: a bar per component against the usable capacity, the totals and
// whether it fits (for a preallocating engine, the batch its KV pool holds).
std::string memory_section(const nlohmann::json& e, const Localizer& L) {
  const nlohmann::json& m = e["memory"];
  const double capacity = num(m, "gpu_capacity_bytes");
  const double scale = capacity > 0 ? capacity : std::max(1.0, num(m, "total_bytes"));
  std::string out =
      L(fmt::format(
          "Memory per GPU (GiB = 2^30 bytes){}",
          capacity > 0 ? fmt::format(", bars against {} GiB usable", gib(capacity)) : "")) +
      "\n";
  for (const auto& row : kComponents) {
    const double v = num(m, row.key);
    if (v <= 0) continue;
    out += fmt::format("  {:<18}{:>10}  {}\n", L(row.label), gib(v), bar(v, scale, 30));
  }
  out += fmt::format("  {:<18}{:>10}\n", L("allocated"), gib(num(m, "allocated_bytes")));
  out += fmt::format("  {:<18}{:>10}\n", L("reserved"), gib(num(m, "reserved_bytes")));
  out += fmt::format(
      "  {:<18}{:>10}  {}  {}\n", L("total (device)"), gib(num(m, "total_bytes")),
      bar(num(m, "total_bytes"), scale, 30),
      L(fmt::format("(range {} - {})", gib(num(m, "low_bytes")), gib(num(m, "high_bytes")))));
  return out + fit_line(e, L);
}

std::string fit_line(const nlohmann::json& e, const Localizer& L) {
  const nlohmann::json& m = e["memory"];
  if (!m.contains("fits")) return "";
  const std::string verdict = m["fits"].get<bool>() ? "fits" : "DOES NOT FIT";
  if (m.contains("kv_cache_capacity_tokens")) {
    // A preallocating engine always takes its share; what fits is the batch in its KV pool.
    const auto& scenario = e.value("scenario", nlohmann::json::object());
    return "  " +
           L(fmt::format("{}: the KV pool holds {} tokens = {} sequences of {} tokens (batch {})",
                         verdict, m["kv_cache_capacity_tokens"].get<int64_t>(),
                         m.value("max_batch", 0), scenario.value("seq_len", 0),
                         scenario.value("batch", 0))) +
           "\n";
  }
  return "  " +
         L(fmt::format("{}: {} of {} GiB usable{}", verdict, gib(num(m, "total_bytes")),
                       gib(num(m, "gpu_capacity_bytes")),
                       m.value("max_batch", int64_t{0}) > 0
                           ? fmt::format("; up to {} concurrent sequences of this length",
                                         m["max_batch"].get<int64_t>())
                           : "")) +
         "\n";
}

// The speed figures by key; with traffic the load verdict and what binds; for training the exposed
// parts of the step, largest first, the zero ones left out.
std::string performance_section(const nlohmann::json& e, const Localizer& L) {
  if (!e.contains("performance") || e["performance"].empty()) return "";
  const auto& perf = e["performance"];
  std::string out = "\n" + L("Performance") + "\n";
  for (const auto& [key, value] : perf.items())
    if (value.is_number()) out += fmt::format("  {:<28}{:>14.4g}\n", key, value.get<double>());
  if (perf.contains("slo_met") && perf["slo_met"].is_boolean()) {  // serving with traffic
    if (perf.contains("load_ttft_ms") && perf["load_ttft_ms"].is_null())
      out += fmt::format("  {:<28}{:>14}\n", "load_ttft_ms", L("overloaded"));
    out +=
        fmt::format("  {:<28}{:>14}\n", "slo_met", L(perf["slo_met"].get<bool>() ? "yes" : "no"));
    if (perf.contains("load_binding") && perf["load_binding"].is_string())
      out +=
          fmt::format("  {:<28}{:>14}\n", "load_binding", perf["load_binding"].get<std::string>());
  }
  if (perf.contains("step_breakdown_s")) {
    std::vector<std::pair<double, std::string>> parts;
    for (const auto& [key, value] : perf["step_breakdown_s"].items())
      if (value.is_number() && value.get<double>() > 0) parts.emplace_back(value, key);
    std::sort(parts.rbegin(), parts.rend());
    out += "  " + L("step breakdown (s)") + "\n";
    for (const auto& [seconds, key] : parts)
      out += fmt::format("    {:<26}{:>14.4g}\n", key, seconds);
  }
  return out;
}

// Power and cost by key, and the rent-or-buy verdict. A scenario that does not fit has no "cost"
// (nor "performance"): only what is there is shown.
std::string power_cost_section(const nlohmann::json& e, const Localizer& L) {
  const nlohmann::json none = nlohmann::json::object();
  const nlohmann::json& power = e.contains("power") ? e["power"] : none;
  const nlohmann::json& cost = e.contains("cost") ? e["cost"] : none;
  if (power.empty() && cost.empty()) return "";
  std::string out = "\n" + L(cost.empty() ? "Power" : "Power and cost") + "\n";
  for (const auto& [key, value] : power.items())
    if (value.is_number()) out += fmt::format("  {:<28}{:>14.0f}\n", key, value.get<double>());
  for (const auto& [key, value] : cost.items())
    if (value.is_number()) out += fmt::format("  {:<28}{:>14.2f}\n", key, value.get<double>());
  const auto& own = cost.value("ownership", nlohmann::json::object());
  if (own.contains("break_even"))
    out += "  " + L("cloud vs on-prem:") + " " + own["break_even"].value("verdict", std::string()) +
           "\n";
  return out;
}

}  // namespace

std::string render_estimate_table(const nlohmann::json& e, Lang lang) {
  if (e.contains("error")) return error_text(e);
  const Localizer L{lang};
  std::string out = headline(e, L) + "\n\n" + top_notes(e, false, L) + memory_section(e, L);
  if (e.contains("rule_of_thumb") && e.value("method", "") != "rule-of-thumb")
    out += "  " +
           L(fmt::format("the articles' rule of thumb: {:.1f} GB (decimal)",
                         num(e["rule_of_thumb"], "total_bytes") / kGB)) +
           "\n";
  out += performance_section(e, L) + power_cost_section(e, L) + changes_text(e, false, L);
  if (!e["warnings"].empty()) {
    out += "\n" + L("Warnings") + "\n";
    for (const auto& w : e["warnings"]) out += "  - " + w.get<std::string>() + "\n";
  }
  return out;
}

std::string render_estimate_markdown(const nlohmann::json& e, Lang lang) {
  if (e.contains("error")) return error_text(e);
  const Localizer L{lang};
  const nlohmann::json& m = e["memory"];
  const double capacity = num(m, "gpu_capacity_bytes");
  std::string out = "**" + headline(e, L) + "**\n\n" + top_notes(e, true, L) +
                    L("| component | GiB per GPU | share | basis |") + "\n|---|---:|---:|---|\n";
  const double total = std::max(1.0, num(m, "total_bytes"));
  for (const auto& row : kComponents) {
    const double v = num(m, row.key);
    if (v <= 0) continue;
    std::string basis = e["basis"].value(row.key, "");
    std::replace(basis.begin(), basis.end(), '|', '/');
    out +=
        fmt::format("| {} | {} | {:.0f}% | {} |\n", L(row.label), gib(v), 100 * v / total, basis);
  }
  out += fmt::format("| **{}** | {} | | |\n| **{}** | {} | | |\n", L("allocated"),
                     gib(num(m, "allocated_bytes")), L("reserved"), gib(num(m, "reserved_bytes")));
  out += fmt::format(
      "| **{}** | **{}** | | {} |\n", L("total (device)"), gib(num(m, "total_bytes")),
      L(fmt::format("(range {} - {})", gib(num(m, "low_bytes")), gib(num(m, "high_bytes")))));
  if (capacity > 0)
    out += "\n" +
           L(fmt::format("{} on {} GiB usable.", m.value("fits", false) ? "Fits" : "Does not fit",
                         gib(capacity))) +
           "\n";
  out += changes_text(e, true, L);
  if (!e["warnings"].empty()) {
    out += "\n" + L("Warnings:") + "\n";
    for (const auto& w : e["warnings"]) out += "- " + w.get<std::string>() + "\n";
  }
  return out;
}

std::string render_gpus(const nlohmann::json& gpus, bool markdown, Lang lang) {
  const Localizer L{lang};
  // Values are the catalog's (ids, figures, yes/no); notes are not in the table.
  auto cell = [&L](const nlohmann::json& row, const char* key) -> std::string {
    const auto& v = row[key];
    if (v.is_null()) return "-";
    if (v.is_number()) return fmt::format("{:g}", v.get<double>());
    const std::string text = v.get<std::string>();
    return text == "yes" || text == "no" ? L(text) : text;
  };
  std::string out;
  if (markdown)
    out += fmt::format(
        "| id | {} | {} | {} | {} | bf16 TFLOPS | fp8 TFLOPS | TDP W | NVLink | ECC | {} |\n"
        "|---|---|---|---:|---:|---:|---:|---:|---|---|---:|\n",
        L("vendor"), L("segment"), L("memory GB"), L("bandwidth GB/s"), L("cloud $/GPU-h"));
  else
    out += fmt::format("{:<30}{:<8}{:<12}{:>7}{:>9}{:>9}{:>9}{:>7}{:>8}{:>5}{:>9}\n", "id",
                       L("vendor"), L("segment"), "GB", "GB/s", "bf16", "fp8", "TDP", "NVLink",
                       "ECC", "$/h");
  const char* row_format = markdown ? "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n"
                                    : "{:<30}{:<8}{:<12}{:>7}{:>9}{:>9}{:>9}{:>7}{:>8}{:>5}{:>9}\n";
  for (const auto& g : gpus)
    out += fmt::format(fmt::runtime(row_format), cell(g, "id"), cell(g, "vendor"),
                       cell(g, "segment"), cell(g, "memory_gb"), cell(g, "memory_bandwidth_gbps"),
                       cell(g, "bf16_tflops_dense"), cell(g, "fp8_tflops_dense"), cell(g, "tdp_w"),
                       cell(g, "nvlink"), cell(g, "ecc"), cell(g, "cloud_usd_per_gpu_hr"));
  return out;
}

std::string render_models(const nlohmann::json& models, bool markdown, Lang lang) {
  const Localizer L{lang};
  std::string out;
  if (markdown)
    out += fmt::format(
        "| id | {} | {} | {} | {} | {} | {} | {} | {} |\n"
        "|---|---|---|---:|---:|---:|---:|---|---|\n",
        L("family"), L("kind"), L("params"), L("active"), L("layers"), L("hidden"), L("heads/kv"),
        L("HF id"));
  else
    out +=
        fmt::format("{:<30}{:<14}{:>10}{:>10}{:>8}{:>8}{:>10}  {}\n", "id", L("family"),
                    L("params"), L("active"), L("layers"), L("hidden"), L("heads/kv"), L("HF id"));
  for (const auto& m : models) {
    const auto& a = m.value("architecture", nlohmann::json::object());
    const std::string heads =
        a.empty() ? "-" : fmt::format("{}/{}", a.value("heads", 0), a.value("kv_heads", 0));
    const std::string params = fmt::format("{:.2f}B", m.value("params", 0.0) / 1e9);
    const std::string active = fmt::format("{:.2f}B", m.value("active_params", 0.0) / 1e9);
    if (markdown)
      out +=
          fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", m.value("id", ""),
                      m.value("family", ""), m.value("kind", ""), params, active,
                      a.value("layers", 0), a.value("hidden_size", 0), heads, m.value("hf_id", ""));
    else
      out += fmt::format("{:<30}{:<14.13}{:>10}{:>10}{:>8}{:>8}{:>10}  {}\n", m.value("id", ""),
                         m.value("family", ""), params, active, a.value("layers", 0),
                         a.value("hidden_size", 0), heads, m.value("hf_id", ""));
  }
  return out;
}

// The band-coverage rows of a validation report as a table: one line per kind (memory has one,
// the device total), the share inside the band on the calibration half, the check half and all.
std::string coverage_table(const std::string& title, const nlohmann::json& rows, bool markdown,
                           const Localizer& L) {
  std::map<std::string, std::map<std::string, std::string>> cells;  // kind -> use -> "i/n (s%)"
  for (const auto& r : rows)
    cells[L(r.value("kind", "device total"))][r.value("use", "")] = fmt::format(
        "{}/{} ({:.0f}%)", r.value("inside", 0), r.value("n", 0), 100 * r.value("share", 0.0));
  std::string out = markdown ? fmt::format(
                                   "\n{}\n\n| {} | {} | {} | {} |\n"
                                   "|---|---:|---:|---:|\n",
                                   title, L("kind"), L("calibration"), L("check"), L("all"))
                             : fmt::format("{}\n{:<20}{:>16}{:>16}{:>16}\n", title, L("kind"),
                                           L("calibration"), L("check"), L("all"));
  if (cells.empty())
    return out + (markdown ? "| " + L("(no band)") + " | | | |\n" : L("(no band)") + "\n");
  for (auto& [kind, by_use] : cells)
    out += markdown ? fmt::format("| {} | {} | {} | {} |\n", kind, by_use["calibrate"],
                                  by_use["validate"], by_use["all"])
                    : fmt::format("{:<20}{:>16}{:>16}{:>16}\n", kind, by_use["calibrate"],
                                  by_use["validate"], by_use["all"]);
  return out;
}

std::string render_validation(const nlohmann::json& report, bool markdown, Lang lang) {
  const Localizer L{lang};
  std::string out;
  auto header = [&](const std::string& title, const std::string& first) {
    out += markdown ? fmt::format(
                          "### {}\n\n| {} | n | {} | p90 | {} | {} |\n"
                          "|---|---:|---:|---:|---:|---:|\n",
                          L(title), L(first), L("median"), L("max"), L("median signed"))
                    : fmt::format("{}\n{:<44}{:>5}{:>9}{:>9}{:>9}{:>15}\n",
                                  L(title + " (absolute relative error)"), L(first), "n",
                                  L("median"), "p90", L("max"), L("median signed"));
  };
  auto row = [&](const std::string& name, const nlohmann::json& g, const char* signed_key) {
    const double med = g.value("median_abs_error", 0.0), p90 = g.value("p90_abs_error", 0.0),
                 max = g.value("max_abs_error", 0.0), bias = g.value(signed_key, 0.0);
    if (markdown)
      out += fmt::format("| {} | {} | {:.1f}% | {:.1f}% | {:.1f}% | {:+.1f}% |\n", name,
                         g.value("n", 0), 100 * med, 100 * p90, 100 * max, 100 * bias);
    else
      out += fmt::format("{:<44}{:>5}{:>8.1f}%{:>8.1f}%{:>8.1f}%{:>14.1f}%\n", name,
                         g.value("n", 0), 100 * med, 100 * p90, 100 * max, 100 * bias);
  };
  if (report.contains("memory")) {
    const auto& body = report["memory"];
    header("memory, by source", "group");
    for (const auto& g : body["groups"]) row(L(g.value("group", "")), g, "median_signed_error");
    size_t failures = 0;
    for (const auto& c : body.value("cases", nlohmann::json::array()))
      failures += c.contains("failure");
    out += (markdown ? "\n" : "") +
           L(fmt::format("{} cases excluded by design, {} failed to run", body.value("excluded", 0),
                         failures)) +
           "\n";
    out += coverage_table(
               L("memory band coverage (measured device total inside low_bytes..high_bytes)"),
               body.value("band_coverage", nlohmann::json::array()), markdown, L) +
           "\n";
  }
  if (report.contains("speed")) {
    const auto& body = report["speed"];
    header("speed, by metric (all rows; held-out rows)", "metric");
    for (const auto& g : body["summary"])
      if (g.value("group", "") == "(all)" && g.value("use", "") != "calibrate")
        row(g.value("metric", "") + (g.value("use", "") == "validate" ? " " + L("(held out)") : ""),
            g, "median_error");
    out += "\n";
    header("speed, by source and metric", "source / metric");
    for (const auto& g : body["summary"])
      if (g.value("group", "") != "(all)" && g.value("use", "") == "all")
        row(g.value("group", "") + " / " + g.value("metric", ""), g, "median_error");
    out += (markdown ? "\n" : "") +
           L(fmt::format("{} included cases failed to run", body.value("failed", 0))) + "\n";
    out += coverage_table(L("speed band coverage (measured value inside the figure's band; a "
                            "check-half source against the bands drawn without it)"),
                          body.value("band_coverage", nlohmann::json::array()), markdown, L);
  }
  return out;
}

}  // namespace gpusizer
