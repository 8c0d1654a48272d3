// The "ownership" object of an estimate's "cost" (docs/contract.md): cloud rental against buying,
// the break-even and the assumptions, described once for both JSON backends.
#include "gpusizer/json/cost.h"

#include <array>
#include <cstdint>
#include <cstring>

#include "report/describe.h"
#include "report/json_figure.h"
#include "report/json_text_parts.h"

namespace gpusizer {
namespace {

// The prices through `repeated`: one instance's price is the fleet's with one instance and the
// listed one in dollars, and the cost after the ownership repeats the fleet's four prices.
template <typename W>
void describe_cloud(W& w, const CloudCost& c, RepeatedFigures& repeated) {
  w.key("cloud");
  w.begin_object();
  w.field("currency", c.currency);
  w.field("gpus_per_instance", c.gpus_per_instance);
  w.field("instance", c.instance);
  w.field("instance_count", c.count);
  repeated.field(w, "instance_usd_per_hour", c.instance_usd_per_hour);
  repeated.field(w, "listed_price_per_hour", c.listed_price_per_hour);
  w.field("price_date", c.price_date);
  w.field("provider", c.provider);
  repeated.field(w, "usd_per_hour", c.usd_per_hour);
  repeated.field(w, "usd_per_million_requests", c.usd_per_million_requests);
  repeated.field(w, "usd_per_million_tokens", c.usd_per_million_tokens);
  repeated.field(w, "usd_per_run", c.usd_per_run);
  w.end_object();
}

template <typename W>
void describe_on_prem(W& w, const OnPremCost& p) {
  w.key("on_prem");
  w.begin_object();
  w.field("capex_cny", p.capex_cny);
  w.field("capex_usd", p.capex_usd);
  w.field("cny_per_hour", p.cny_per_hour);
  w.field("energy_usd_per_hour", p.energy_usd_per_hour);
  w.field("gpus_usd", p.gpus_usd);
  w.field("maintenance_usd_per_year", p.maintenance_usd_per_year);
  if (!p.server.empty()) w.field("server", p.server);
  w.field("servers", p.servers);
  w.field("servers_usd", p.servers_usd);
  w.field("usd_per_hour", p.usd_per_hour);
  w.field("usd_per_million_tokens", p.usd_per_million_tokens);
  w.field("usd_per_run", p.usd_per_run);
  w.end_object();
}

// The assumptions' six figures with their JSON texts. They are costs.json's for every scenario
// that does not override them, so the texts of the last assumptions the thread wrote are kept
// with the figures and made again only when one differs (issue 18: four or five Grisu2 texts an
// answer, ~290 instructions each, for the same 0.13, 0.1, 1.5, 7.2 and 0.6).
struct AssumptionTexts {
  static constexpr size_t kCount = 6;
  std::array<double, kCount> figures{};
  std::array<std::array<char, kJsonFloatChars>, kCount> text;
  std::array<uint8_t, kCount> size{};
  bool made = false;

  std::string_view of(size_t i) const { return {text[i].data(), size[i]}; }
};

const AssumptionTexts& assumption_texts(const CostAssumptions& a) {
  thread_local AssumptionTexts t;
  const std::array<double, AssumptionTexts::kCount> figures = {a.amortization_years,
                                                               a.electricity_usd_per_kwh,
                                                               a.maintenance_fraction_per_year,
                                                               a.pue,
                                                               a.usd_to_cny,
                                                               a.utilization};
  // Compared as bytes: -0.0 and 0.0 have different texts.
  if (t.made && std::memcmp(figures.data(), t.figures.data(), sizeof figures) == 0) return t;
  for (size_t i = 0; i < AssumptionTexts::kCount; ++i)
    t.size[i] =
        static_cast<uint8_t>(write_json_figure(t.text[i].data(), figures[i]) - t.text[i].data());
  t.figures = figures;
  t.made = true;
  return t;
}

template <typename W>
void describe_assumptions(W& w, const CostAssumptions& a) {
  const AssumptionTexts& t = assumption_texts(a);
  auto number = [&](std::string_view k, size_t i) {
    w.literal_number_text(k, t.figures[i], t.of(i));
  };
  w.key("assumptions");
  w.begin_object();
  number("amortization_years", 0);
  w.field("date", a.date);
  number("electricity_usd_per_kwh", 1);
  number("maintenance_fraction_per_year", 2);
  number("pue", 3);
  number("usd_to_cny", 4);
  number("utilization", 5);
  w.end_object();
}

}  // namespace

template <typename W>
void describe_ownership(W& w, const Ownership& o, RepeatedFigures& repeated) {
  w.begin_object();
  describe_assumptions(w, o.assumptions);
  w.strings("basis", o.basis);
  w.key("break_even");
  w.begin_object();
  w.field("months", o.break_even.months);
  w.field("utilization", o.break_even.utilization);
  w.field("verdict", o.break_even.verdict);
  w.end_object();
  if (o.cloud) describe_cloud(w, *o.cloud, repeated);
  if (!o.not_rented.empty()) w.field("not_rented", o.not_rented);
  if (o.on_prem) describe_on_prem(w, *o.on_prem);
  w.end_object();
}

template <typename W>
void describe_ownership(W& w, const Ownership& o) {
  RepeatedFigures repeated;
  describe_ownership(w, o, repeated);
}

nlohmann::json to_json(const Ownership& o) {
  TreeWriter w;
  describe_ownership(w, o);
  return w.take();
}

// For the backends (report/describe.h; the raw writer for the text writer, report/raw_writer.h).
template void describe_ownership(TreeWriter&, const Ownership&);
template void describe_ownership(TextWriter&, const Ownership&);
template void describe_ownership(TreeWriter&, const Ownership&, RepeatedFigures&);
template void describe_ownership(TextWriter&, const Ownership&, RepeatedFigures&);
template void describe_ownership(RawWriter&, const Ownership&, RepeatedFigures&);

}  // namespace gpusizer
