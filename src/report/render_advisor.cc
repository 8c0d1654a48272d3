// Tables and markdown for the advisor's answers: recommendation, reverse fit, buyer's report.
// Built from the JSON so the CLI and the server show the same numbers.
#include <fmt/format.h>

#include "gpusizer/render.h"
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

std::string parallel_words(const nlohmann::json& p) {
  std::string s;
  if (p.value("tp", 1) > 1) s += fmt::format("TP{} ", p.value("tp", 1));
  if (p.value("pp", 1) > 1) s += fmt::format("PP{} ", p.value("pp", 1));
  if (p.value("dp", 1) > 1) s += fmt::format("DP{} ", p.value("dp", 1));
  if (p.value("zero_stage", 0) > 0) s += fmt::format("Z{} ", p.value("zero_stage", 0));
  if (p.value("gradient_checkpointing", false)) s += "GC ";
  if (s.empty()) return "-";
  s.pop_back();
  return s;
}

std::string table(const std::vector<std::string>& head,
                  const std::vector<std::vector<std::string>>& rows, bool markdown) {
  std::vector<size_t> w(head.size());
  for (size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  std::string out;
  auto line = [&](const std::vector<std::string>& r) {
    if (markdown) out += "|";
    for (size_t i = 0; i < w.size(); ++i) {
      const std::string v = i < r.size() ? r[i] : "";
      out += markdown ? " " + v + std::string(w[i] - v.size(), ' ') + " |"
                      : v + std::string(w[i] - v.size() + 2, ' ');
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
std::string fleet_words(const nlohmann::json& o) {
  std::string out;
  if (o.contains("instance") && o["instance"].is_object())
    out = fmt::format("{} x {}", o["instance"].value("count", 1),
                      o["instance"].value("name", std::string()));
  else if (o.contains("nodes"))
    out = fmt::format("{} node{}", o.value("nodes", 1), o.value("nodes", 1) > 1 ? "s" : "");
  if (o.contains("racks"))
    out += fmt::format(", {} rack{}", o.value("racks", 1), o.value("racks", 1) > 1 ? "s" : "");
  if (o.value("replicas", 1) > 1) out += fmt::format(", {} replicas", o.value("replicas", 1));
  return out.empty() ? "-" : out;
}

std::string options_table(const nlohmann::json& rec, bool markdown, size_t limit) {
  std::vector<std::vector<std::string>> rows;
  size_t i = 0;
  for (const auto& o : rec["options"]) {
    if (i++ >= limit) break;
    const auto& e = o["estimate"];
    const auto& perf = e.value("performance", nlohmann::json::object());
    const auto& cost = e.value("cost", nlohmann::json::object());
    std::string speed = perf.contains("max_output_tokens_per_s")
                            ? cell(perf, "max_output_tokens_per_s", "{:.0f} tok/s")
                            : cell(perf, "train_tokens_per_s", "{:.0f} tok/s");
    rows.push_back({std::to_string(i), o.value("gpu", ""), std::to_string(o.value("gpu_count", 1)),
                    o.value("weights", ""), parallel_words(o["parallel"]),
                    fmt::format("{:.0f}%", num(o, "headroom") * 100), speed,
                    cell(o, "fleet_usd_per_hour", "${:.2f}"), fleet_words(o),
                    o["objective_value"].is_number()
                        ? fmt::format("{:.4g}", o["objective_value"].get<double>())
                        : "-",
                    cell(e["power"], "node_watts", "{:.1f} kW", 1e-3), o.value("binding", "-"),
                    fmt::format("{:.0f}", num(o, "score"))});
  }
  return table({"#", "GPU", "n", "weights", "parallel", "headroom", "throughput", "fleet $/h",
                "machines", "objective", "node", "binding", "score"},
               rows, markdown);
}

std::string changes_list(const nlohmann::json& changes, bool markdown) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : changes)
    rows.push_back({c.value("change", ""), c.value("fits", false) ? "yes" : "no",
                    fmt::format("{:.1f}", num(c, "saves_bytes") / kGiB),
                    cell(c, "speed_factor", "x{:.2f}"), c.value("cost", "")});
  return table({"change", "fits", "saves GiB", "speed", "cost"}, rows, markdown);
}

}  // namespace

std::string render_recommendation(const nlohmann::json& rec, bool markdown) {
  std::string out;
  out += fmt::format("{}Options, best first by {} (memory kept free: {:.0f}%)\n\n",
                     markdown ? "### " : "", rec.value("objective", "cost"),
                     num(rec, "headroom") * 100);
  if (rec["options"].empty()) {
    out += "No GPU in the catalog fits with these constraints.\n";
  } else {
    out += options_table(rec, markdown, 20);
    out += "objective: " + rec["options"][0].value("objective_basis", std::string()) +
           " (lower is better)\n";
  }
  size_t i = 0;
  for (const auto& o : rec["options"]) {
    if (i++ >= 5) break;
    out += fmt::format("\n{}{}. {} x {} ({})\n", markdown ? "**" : "", i, o.value("gpu_count", 1),
                       o.value("gpu_name", o.value("gpu", "")), o.value("weights", "")) +
           (markdown ? "**\n" : "");
    for (const auto& r : o["reasons"]) out += "  - " + r.get<std::string>() + "\n";
    for (const auto& w : o["warnings"]) out += "  - warning: " + w.get<std::string>() + "\n";
  }
  if (!rec["rejected"].empty()) {
    out += fmt::format("\n{}Rejected\n", markdown ? "### " : "");
    for (const auto& r : rec["rejected"]) out += "  - " + r.value("why", "") + "\n";
  }
  if (!rec["changes"].empty()) {
    out += fmt::format("\n{}What to change so it fits ({})\n\n", markdown ? "### " : "",
                       rec.value("changes_for", ""));
    out += changes_list(rec["changes"], markdown);
  }
  return out;
}

std::string render_fit(const nlohmann::json& fit, bool markdown) {
  std::string out =
      fmt::format("{}Largest models for {} on {} x {} (weights {})\n\n", markdown ? "### " : "",
                  fit.value("task", ""), fit.value("gpu_count", 1), fit.value("gpu", ""),
                  fit.value("weights", ""));
  if (auto it = fit.find("levers"); it != fit.end() && it->is_array() && !it->empty()) {
    std::string names;
    for (const auto& l : *it) names += (names.empty() ? "" : ", ") + l.get<std::string>();
    out += "With the levers standard for the task: " + names + " (--no-levers: without)\n\n";
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : fit["models"])
    rows.push_back({m.value("model", ""), fmt::format("{:.2f}B", num(m, "params") / 1e9),
                    std::to_string(m.value("max_seq_len", 0)),
                    std::to_string(m.value("max_batch", 0))});
  if (rows.empty()) return out + "No catalog model fits.\n";
  return out + table({"model", "params", "max context", "max batch"}, rows, markdown);
}

std::string render_report_markdown(const nlohmann::json& r) {
  const auto& rec = r["recommendation"];
  const auto& m = r["model"];
  std::string out =
      fmt::format("# GPU purchase request: {} ({})\n\n", m.value("name", ""), r.value("task", ""));
  out += "## 1. Model and scenario\n\n";
  out += fmt::format("- Model: {} — {:.2f}B parameters ({:.2f}B active per token)\n",
                     m.value("id", ""), num(m, "params") / 1e9, num(m, "active_params") / 1e9);
  out += fmt::format("- Job: {}; batch (concurrency) {} x {} tokens\n", r.value("task", ""),
                     r.value("batch", 1), r.value("seq_len", 0));
  if (rec["options"].empty()) {
    out += "\n**No GPU in the catalog fits.** See what to change below.\n";
  } else {
    const auto& best = rec["options"][0];
    const auto& e = best["estimate"];
    const auto& mem = e["memory"];
    out += "\n## 2. Memory per GPU (recommended system, GiB = 2^30 bytes)\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const char* k : {"weights_bytes", "kv_cache_bytes", "activations_bytes", "gradients_bytes",
                          "optimizer_bytes", "master_weights_bytes", "overhead_bytes",
                          "total_bytes", "gpu_capacity_bytes"})
      if (num(mem, k) > 0)
        rows.push_back({std::string(k).substr(0, std::string(k).size() - 6),
                        fmt::format("{:.2f}", num(mem, k) / kGiB)});
    out += table({"component", "GiB"}, rows, true);
    out +=
        "\n## 3. Options (best first by " + rec.value("objective", std::string("cost")) + ")\n\n";
    out += options_table(rec, true, 5);
    out += "\nWhy the first option:\n";
    for (const auto& x : best["reasons"]) out += "- " + x.get<std::string>() + "\n";
    const auto& own = e["cost"].value("ownership", nlohmann::json::object());
    out += "\n## 4. Cloud vs on-prem (recommended system)\n\n";
    if (own.contains("cloud"))
      out += fmt::format(
          "- Cloud: ${:.2f}/hour ({}, price of {}){}{}\n", num(own["cloud"], "usd_per_hour"),
          own["cloud"].value("instance", ""), own["cloud"].value("price_date", ""),
          own["cloud"].contains("usd_per_million_tokens")
              ? fmt::format("; ${:.3f} per million tokens",
                            num(own["cloud"], "usd_per_million_tokens"))
              : "",
          own["cloud"].contains("usd_per_run")
              ? fmt::format("; ${:.0f} per training run", num(own["cloud"], "usd_per_run"))
              : "");
    else
      out += "- Cloud: no cloud price for this GPU in the catalog\n";
    if (own.contains("on_prem"))
      out += fmt::format(
          "- On-prem: ${:.0f} (¥{:.0f}) up front (GPUs ${:.0f} + servers ${:.0f}); "
          "${:.2f}/hour of use amortized; energy ${:.2f}/hour while running\n",
          num(own["on_prem"], "capex_usd"), num(own["on_prem"], "capex_cny"),
          num(own["on_prem"], "gpus_usd"), num(own["on_prem"], "servers_usd"),
          num(own["on_prem"], "usd_per_hour"), num(own["on_prem"], "energy_usd_per_hour"));
    else
      out += "- On-prem: no purchase price for this GPU in the catalog\n";
    if (own.contains("break_even")) {
      const auto& b = own["break_even"];
      // A break-even above 100% utilization is never reached: no percentage above 100 is shown.
      if (b.contains("utilization") && num(b, "utilization") >= 1.0)
        out +=
            "- Break-even: never; owning would cost more than renting even busy around the "
            "clock\n";
      else if (b.contains("utilization")) {
        // Payback past the amortization life is no payback: said so, not as "paying back".
        const double life_months =
            12.0 * num(own.value("assumptions", nlohmann::json::object()), "amortization_years");
        const double months = num(b, "months");
        out += fmt::format(
            "- Break-even: owning wins above {:.0f}% utilization{}\n", num(b, "utilization") * 100,
            !b.contains("months") ? ""
            : life_months > 0 && months > life_months
                ? fmt::format("; at the assumed utilization it would take {:.0f} months, past "
                              "the {:.0f}-month life, so it does not pay back",
                              months, life_months)
                : fmt::format(", paying back in {:.0f} months", months));
      }
      out += "- Verdict: " + b.value("verdict", "") + "\n";
    }
    const auto& p = e["power"];
    out += "\n## 5. Power and machine room\n\n";
    out += fmt::format(
        "- {} node(s); {:.2f} kW per node with margin ({:.2f} kW peak); fleet "
        "{:.2f} kW\n",
        static_cast<int64_t>(num(p, "nodes", 1)), num(p, "node_watts") / 1000,
        num(p, "node_peak_watts") / 1000, num(p, "fleet_watts") / 1000);
    out += fmt::format(
        "- Cooling {:.0f} BTU/h; UPS at least {:.1f} kVA; about {:.0f} kWh a year "
        "at the facility meter\n",
        num(p, "btu_per_hour"), num(p, "ups_kva"), num(p, "annual_kwh"));
    out += fmt::format("- Rack budget {:.1f} kW per rack\n", num(p, "rack_budget_watts") / 1000);
    out += "\n## 6. Risks\n\n";
    bool any = false;
    for (const auto& w : best["warnings"]) {
      out += "- " + w.get<std::string>() + "\n";
      any = true;
    }
    if (!any) out += "- none flagged for the recommended system\n";
  }
  if (!rec["rejected"].empty()) {
    out += "\n## 7. Rejected GPUs\n\n";
    size_t i = 0;
    for (const auto& x : rec["rejected"]) {
      if (i++ >= 25) {
        out += fmt::format("- ... and {} more (see the JSON)\n", rec["rejected"].size() - 25);
        break;
      }
      out += "- " + x.value("why", "") + "\n";
    }
  }
  if (!rec["changes"].empty()) {
    out +=
        "\n## 8. What to change so it fits (" + rec.value("changes_for", std::string()) + ")\n\n";
    out += changes_list(rec["changes"], true);
  }
  out +=
      "\n*Figures from gpusizer (docs/method.md); prices and defaults from data/gpus.csv and "
      "data/costs.json with their dates.*\n";
  return out;
}

}  // namespace gpusizer
