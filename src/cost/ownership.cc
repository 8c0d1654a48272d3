// Cost of ownership: rent (whole cloud instances, data/instances.csv) against buy (purchase
// price of GPUs and whole servers, data/servers.csv, straight-line amortization, energy x PUE,
// maintenance). Defaults in data/costs.json; the verdict follows the articles' reasoning
// (fluctuating or one-off demand: cloud; long, steady, private work: on-prem).
#include "gpusizer/cost.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string_view>
#include <utility>

#include "core/kept_texts.h"
#include "core/text_append.h"
#include "cost/fleet.h"
#include "cost/ownership_figures.h"
#include "gpusizer/error.h"
#include "gpusizer/scenario.h"

namespace gpusizer {

namespace {

// A price in dollars as a piece of append_text: "$1599" from $100 up, else "$0.52".
struct Money {
  double usd;
};
void append_piece(std::string& out, Money m) {
  out += '$';
  append_fixed(out, m.usd, m.usd >= 100 ? 0 : 2);
}
constexpr size_t piece_room(Money) {
  return 1 + kFloatTextChars;
}
char* put_piece(char* p, Money m) {
  *p++ = '$';
  return fixed_text(p, m.usd, m.usd >= 100 ? 0 : 2);
}

// How much the hardware is used: tokens a second (when known) and seconds of one training run (0
// when not known: no training.tokens).
struct Use {
  std::optional<double> tokens_per_s;
  double run_s = 0;
};

// The hourly price per useful output: per million tokens at full use (hourly price / tokens an
// hour) and per run.
void price_use(double usd_per_hour, const Use& use, std::optional<double>& per_million_tokens,
               std::optional<double>& per_run) {
  if (use.tokens_per_s) per_million_tokens = usd_per_hour / (*use.tokens_per_s * 3600.0) * 1e6;
  if (use.run_s > 0) per_run = usd_per_hour * use.run_s / 3600.0;
}

CloudCost cloud_cost(const Scenario& s, const InstancePlan& rent, const Use& use) {
  const CloudInstance& i = *rent.instance;
  CloudCost c;
  c.usd_per_hour = rent.usd_per_hour;
  c.instance = i.name;
  c.price_date = i.date;
  c.provider = i.provider;
  c.count = rent.count;
  c.gpus_per_instance = i.gpus;
  c.instance_usd_per_hour = rent.instance_usd_per_hour;
  c.listed_price_per_hour = i.price_per_hour;
  c.currency = i.currency;
  price_use(c.usd_per_hour, use, c.usd_per_million_tokens, c.usd_per_run);
  // One request produces output_len tokens (serving), so requests cost output_len x that.
  if (c.usd_per_million_tokens && !is_training(s.task))
    c.usd_per_million_requests =
        *c.usd_per_million_tokens * static_cast<double>(std::max<int64_t>(1, s.output_len));
  return c;
}

// What the cloud line is written from: the instances rented and the fleet (the instance's
// fields by value: another catalog's row may come to sit at the same address).
struct CloudProbe {
  const InstancePlan& rent;
  int64_t gpu_count, node_gpus;
  const CostAssumptions& a;  // read for a price in CNY
  bool cny() const { return rent.instance->currency == "CNY"; }
};
struct KeptCloud {
  int64_t count = 0, gpus = 0, gpu_count = 0, node_gpus = 0;
  std::array<double, 3> figures{};  // listed price, its USD, the exchange rate (CNY only)
  std::string name, provider, currency, region, date, assumed_date;
  std::array<double, 3> figures_of(const CloudProbe& p) const {
    const CloudInstance& i = *p.rent.instance;
    return {i.price_per_hour, p.rent.instance_usd_per_hour, p.cny() ? p.a.usd_to_cny : 0.0};
  }
  // Figures compared as bytes: -0.0 and 0.0 write different texts.
  bool matches(const CloudProbe& p) const {
    const CloudInstance& i = *p.rent.instance;
    const std::array<double, 3> f = figures_of(p);
    return count == p.rent.count && gpus == i.gpus && gpu_count == p.gpu_count &&
           node_gpus == p.node_gpus && std::memcmp(f.data(), figures.data(), sizeof f) == 0 &&
           name == i.name && provider == i.provider && currency == i.currency &&
           region == i.region && date == i.date && (!p.cny() || assumed_date == p.a.date);
  }
  void keep(const CloudProbe& p) {
    const CloudInstance& i = *p.rent.instance;
    count = p.rent.count;
    gpus = i.gpus;
    gpu_count = p.gpu_count;
    node_gpus = p.node_gpus;
    figures = figures_of(p);
    name = i.name;
    provider = i.provider;
    currency = i.currency;
    region = i.region;
    date = i.date;
    assumed_date = p.cny() ? p.a.date : std::string();
  }
};

// The cloud line of the basis, its pieces appended one by one to the line (core/text_append.h;
// issue 18: the prices and the optional clauses were strings of their own, formatted and then
// copied into the line), and kept per thread with what it was written from (core/kept_texts.h;
// issue 18: two runs of pieces and a price, ~600 instructions an estimate that rents, for the
// few GPUs and counts a batch or a search prices over and over).
std::string cloud_basis(const Scenario& s, const InstancePlan& rent, const CostAssumptions& a,
                        int64_t node_gpus) {
  thread_local KeptTexts<KeptCloud, 8> kept;
  std::string out;
  out.reserve(256);  // the line's usual length, one allocation
  const CloudProbe probe{rent, s.gpu_count, node_gpus, a};
  kept.append(out, probe, [&](std::string& text) {
    const CloudInstance& i = *rent.instance;
    const int64_t billed = rent.count * i.gpus;
    append_text(text, "cloud: ", rent.count, " x ", i.name, " (", i.provider, ", ", i.gpus,
                i.gpus > 1 ? " GPUs each, " : " GPU each, ");
    if (probe.cny())
      append_text(text, "CNY ", General{i.price_per_hour},
                  "/h = ", Money{rent.instance_usd_per_hour}, " at ", General{a.usd_to_cny},
                  " CNY/USD (costs.json, ", a.date, ')');
    else
      append_text(text, Money{i.price_per_hour}, "/h");
    append_text(text, "; ", i.region, ", ", i.date, ") for ", s.gpu_count, " GPUs in nodes of ",
                node_gpus);
    if (billed > s.gpu_count) append_text(text, "; ", billed, " GPUs billed");
    if (i.gpus < node_gpus)
      append_text(text, "; no listed shape holds a node of ", node_gpus, ", so a node spans ",
                  (node_gpus + i.gpus - 1) / i.gpus, " instances");
  });
  return out;
}

// Why `g` is not rented: no listed instance, or none that holds the `linked` GPUs that must
// share one machine (cost/fleet.h; `training`: a whole node). Out of line: most estimates rent
// (issue 18).
[[gnu::noinline]] void explain_not_rented(const Gpu& g, const Catalog& catalog, bool china,
                                          int64_t linked, bool training, std::string& out) {
  // Appended piece by piece (core/text_append.h, issue 18), not through fmt's compiled format.
  out.clear();
  const CloudInstance* largest = nullptr;
  for_each_instance(g, catalog, china, [&](const CloudInstance& i) {
    if (!largest || i.gpus > largest->gpus) largest = &i;
  });
  if (!largest)
    append_text(out, "not rented: no cloud instance of ", g.name, " in data/instances.csv",
                std::string_view(china ? " in mainland-China regions" : ""));
  else if (training)
    append_text(out, "not rented: no cloud shape of ", g.name, " holds a node of ", linked,
                " GPUs for training's gradient exchange (largest listed: ", largest->name, " with ",
                largest->gpus, ')');
  else
    append_text(out, "not rented: no cloud shape of ", g.name,
                " holds a tensor or expert parallel group of ", linked,
                " GPUs on one machine (largest listed: ", largest->name, " with ", largest->gpus,
                ')');
}

// Cloud: the fleet in whole instances, one node per instance (cost/fleet.h).
void add_cloud(const Scenario& s, const CostAssumptions& a, const Catalog& catalog,
               const std::string& region, const Use& use, OwnershipText text, Ownership& o) {
  const Gpu& g = *s.gpu;
  const bool china = region == "cn";
  const int64_t node_gpus = std::min(s.gpu_count, s.gpus_per_node);
  // The GPUs that must share one instance. Serving: a replica's tensor or expert parallel
  // group, which talks every layer; replicas exchange nothing, and pipeline stages pass one
  // activation a step, which crosses machines well (vLLM puts pipeline parallelism across
  // nodes). Training: the whole node, whose link the step's gradient reduction (and ZeRO's
  // gathers) is timed over (speed/training_speed.cc); apart, they would cross a slower network.
  const bool training = is_training(s.task);
  const int64_t linked =
      training ? node_gpus
               : std::min(s.replica_gpus() / std::max<int64_t>(1, s.parallel.pp), node_gpus);
  if (const auto rent =
          cheapest_instances(g, s.gpu_count, node_gpus, linked, catalog, a.usd_to_cny, china)) {
    o.cloud = cloud_cost(s, *rent, use);
    if (text == OwnershipText::kBasis) o.basis.push_back(cloud_basis(s, *rent, a, node_gpus));
    return;
  }
  if (text == OwnershipText::kNone || text == OwnershipText::kRentOnly) return;
  explain_not_rented(g, catalog, china, linked, training, o.not_rented);
  if (text == OwnershipText::kBasis) o.basis.push_back(o.not_rented);
}

// The price of one server: a scenario's own costs.server_usd_per_node wins; else the form's
// chassis price; a form without one (sold only with its GPUs) takes costs.json's figure for the
// GPU's form-factor class, which must be there (no price is assumed in C++).
double server_price(const Scenario& s, const Gpu& g, const CostAssumptions& a,
                    const NodePlan& plan) {
  const bool user_price = s.costs.is_object() && s.costs.contains("server_usd_per_node");
  if (!user_price && plan.server && plan.server->chassis_usd) return *plan.server->chassis_usd;
  const ServerPrices* prices = a.server_usd_per_node.get();
  const auto it = prices ? prices->find(g.form_factor_class) : ServerPrices::const_iterator();
  if (!prices || it == prices->end())
    throw InputError("costs.json server_usd_per_node." + g.form_factor_class,
                     "is missing: the price of a server for " + g.name + " (form factor class " +
                         g.form_factor_class + " in gpus.csv)",
                     "bad_file");
  return it->second;
}

// The on-prem line's clauses that read the assumptions alone: the amortization, maintenance and
// utilization (before the IT load) and the PUE, tariff, exchange rate and date (after it), and
// the verdict's years and utilization. The assumptions are costs.json's for every scenario that
// does not override them, so the texts of the last assumptions the thread priced are kept with
// the figures they were written from and written again only when one differs (issue 18: eight
// number texts, ~1k instructions an estimate).
struct AssumptionClauses {
  std::array<double, 6> figures{};  // amortization, maintenance, utilization, PUE, tariff, CNY
  std::string date, before_load, after_load;
  std::string years, utilization_percent;  // "{:g}" of the years, "{:.0f}" of utilization x 100
  bool made = false;
};

// The assumptions' figures the clauses are written from, in AssumptionClauses::figures' order.
std::array<double, 6> assumption_figures(const CostAssumptions& a) {
  return {a.amortization_years,
          a.maintenance_fraction_per_year,
          a.utilization,
          a.pue,
          a.electricity_usd_per_kwh,
          a.usd_to_cny};
}

const AssumptionClauses& assumption_clauses(const CostAssumptions& a) {
  thread_local AssumptionClauses c;
  const std::array<double, 6> figures = assumption_figures(a);
  // Compared as bytes: -0.0 and 0.0 write different texts, and a NaN is never equal to itself.
  if (c.made && std::memcmp(figures.data(), c.figures.data(), sizeof figures) == 0 &&
      c.date == a.date)
    return c;
  c.made = false;  // first: the texts below may throw half written
  c.before_load.clear();
  append_text(c.before_load, ") / ", General{a.amortization_years}, " years + ",
              General{a.maintenance_fraction_per_year * 100}, "%/year maintenance, over 8760 h x ",
              General{a.utilization}, " utilization, + ");
  c.after_load.clear();
  append_text(c.after_load, " kW x PUE ", General{a.pue}, " x $",
              General{a.electricity_usd_per_kwh}, "/kWh; CNY at ", General{a.usd_to_cny},
              "/USD (data/costs.json, ", a.date, ')');
  c.years.clear();
  append_text(c.years, General{a.amortization_years});
  c.utilization_percent.clear();
  append_text(c.utilization_percent, Fixed{a.utilization * 100, 0});
  c.figures = figures;
  c.date = a.date;
  c.made = true;
  return c;
}

// What the on-prem line is written from: the GPUs and their price, the servers, their name or
// class and price, the IT load and the assumptions (figures compared as bytes: -0.0 and 0.0 write
// different texts).
struct OnPremProbe {
  int64_t gpu_count, servers;
  std::array<double, 9> figures;  // GPU price, server price, IT kW, then the assumptions' six
  bool own_server;                // a servers.csv form (its name and date), else a costs.json class
  std::string_view server, server_date;
  const std::string& date;  // the assumptions'
};
struct KeptOnPrem {
  int64_t gpu_count = 0, servers = 0;
  std::array<double, 9> figures{};
  bool own_server = false;
  std::string server, server_date, date;
  bool matches(const OnPremProbe& p) const {
    return gpu_count == p.gpu_count && servers == p.servers && own_server == p.own_server &&
           std::memcmp(figures.data(), p.figures.data(), sizeof figures) == 0 &&
           server == p.server && server_date == p.server_date && date == p.date;
  }
  void keep(const OnPremProbe& p) {
    gpu_count = p.gpu_count;
    servers = p.servers;
    figures = p.figures;
    own_server = p.own_server;
    server.assign(p.server);
    server_date.assign(p.server_date);
    date.assign(p.date);
  }
};

// The on-prem line of the basis, written as cloud_basis is, and kept per thread with what it was
// written from (core/kept_texts.h; issue 18: two prices, the IT load and five pieces, ~300
// instructions an estimate, for the line a sweep over batches or lengths of one GPU and count
// writes again and again).
std::string on_prem_basis(const Scenario& s, const Gpu& g, const CostAssumptions& a,
                          const OnPremCost& p, const NodePlan& plan, double server_usd,
                          double it_kw) {
  thread_local KeptTexts<KeptOnPrem, 8> kept;
  const bool own = !p.server.empty();
  const std::array<double, 6> assumed = assumption_figures(a);
  const OnPremProbe probe{
      s.gpu_count,
      p.servers,
      {*g.launch_price_usd, server_usd, it_kw, assumed[0], assumed[1], assumed[2], assumed[3],
       assumed[4], assumed[5]},
      own,
      own ? std::string_view(plan.server->name) : std::string_view(g.form_factor_class),
      own ? std::string_view(plan.server->date) : std::string_view(),
      a.date};
  std::string out;
  out.reserve(320);  // the line's usual length, one allocation
  kept.append(out, probe, [&](std::string& text) {
    append_text(text, "on-prem: (", s.gpu_count, " GPUs x ", Money{*g.launch_price_usd}, " + ",
                p.servers, " x ");
    if (!own)
      append_text(text, g.form_factor_class, " server (costs.json)");
    else
      append_text(text, plan.server->name, " (servers.csv, ", plan.server->date, ')');
    const AssumptionClauses& clauses = assumption_clauses(a);
    append_text(text, " at ", Money{server_usd}, clauses.before_load, Fixed{it_kw, 2},
                clauses.after_load);
  });
  return out;
}

// On-prem: whole servers of the smallest form that holds a node (data/servers.csv).
// `planned`: the nodes power was estimated with, or null.
void add_on_prem(const Scenario& s, const PowerEstimate& power, const CostAssumptions& a,
                 const Catalog& catalog, const NodePlan* planned, const Use& use,
                 OwnershipText text, Ownership& o) {
  const Gpu& g = *s.gpu;
  if (!g.launch_price_usd || !power.node_peak_watts || !power.nodes) return;
  const NodePlan plan = planned ? *planned : plan_nodes(g, s.gpu_count, s.gpus_per_node, catalog);
  const bool user_price = s.costs.is_object() && s.costs.contains("server_usd_per_node");
  const double server = server_price(s, g, a, plan);
  OnPremCost p;
  p.gpus_usd = *g.launch_price_usd * static_cast<double>(s.gpu_count);
  p.server = plan.server && !user_price ? plan.server->id : "";
  p.servers = *power.nodes;
  p.servers_usd = server * static_cast<double>(*power.nodes);
  p.capex_usd = p.gpus_usd + p.servers_usd;
  p.capex_cny = p.capex_usd * a.usd_to_cny;
  // Energy while running: the nodes' peak draw (no design margin) x PUE x tariff.
  const double it_kw = *power.node_peak_watts * static_cast<double>(*power.nodes) / 1000.0;
  p.energy_usd_per_hour = it_kw * a.pue * a.electricity_usd_per_kwh;
  p.maintenance_usd_per_year = a.maintenance_fraction_per_year * p.capex_usd;
  // Amortized cost per useful hour: (capex / years + maintenance) spread over the hours used,
  // plus the energy of those hours.
  const double hours_used_per_year = 8760.0 * a.utilization;
  p.usd_per_hour =
      (p.capex_usd / a.amortization_years + p.maintenance_usd_per_year) / hours_used_per_year +
      p.energy_usd_per_hour;
  p.cny_per_hour = p.usd_per_hour * a.usd_to_cny;
  price_use(p.usd_per_hour, use, p.usd_per_million_tokens, p.usd_per_run);
  o.on_prem = p;
  if (text != OwnershipText::kBasis) return;
  o.basis.push_back(on_prem_basis(s, g, a, p, plan, server, it_kw));
  if (plan.server && plan.gpus_per_node > s.gpu_count) {
    append_text(o.basis.emplace_back(), "on-prem: the smallest server that holds ", s.gpu_count,
                " x ", g.name, " is the ", plan.server->name, " (up to ", plan.server->max_gpus,
                " GPUs)");
  }
}

// Rent against buy, both priced: the utilization above which owning is cheaper and the months
// until it pays back.
void compare_rent_and_buy(const CloudCost& cloud, const OnPremCost& on_prem,
                          const CostAssumptions& a, BreakEven& b) {
  const double rent = cloud.usd_per_hour, energy = on_prem.energy_usd_per_hour;
  const double fixed_per_year =
      on_prem.capex_usd / a.amortization_years + on_prem.maintenance_usd_per_year;
  // Buying wins when rent x hours used > fixed + energy x hours used over a year:
  // u* = fixed per year / ((rent - energy) x 8760).
  if (rent > energy) {
    b.utilization = fixed_per_year / ((rent - energy) * 8760.0);
    // Months until cumulative rent meets capex plus running costs, at the assumed utilization.
    const double saved_per_month = (rent - energy) * a.hours_per_month * a.utilization -
                                   on_prem.maintenance_usd_per_year / 12.0;
    if (saved_per_month > 0) b.months = on_prem.capex_usd / saved_per_month;
  }
  const double life_months = a.amortization_years * 12.0;
  const AssumptionClauses& clauses = assumption_clauses(a);
  const std::string_view years = clauses.years, utilization = clauses.utilization_percent;
  // The verdicts' pieces appended one by one (core/text_append.h, issue 18).
  // One allocation for the longest verdict (about 200 bytes), not one per doubling.
  std::string& v = b.verdict;
  v.clear();
  v.reserve(256);
  if (!b.utilization || *b.utilization >= 1.0) {
    append_text(v, "rent: at these prices buying never pays back within ", years,
                " years, even busy around the clock");
  } else if (a.utilization >= *b.utilization && b.months && *b.months <= life_months) {
    append_text(v, "buy if the work is long and steady: above ", Fixed{*b.utilization * 100, 0},
                "% utilization owning is cheaper, and at ", utilization, "% it pays back in ",
                Fixed{*b.months, 0}, " months (of a ", years,
                "-year life); private data also favours on-prem. Fluctuating or one-off demand "
                "still favours the cloud");
  } else {
    append_text(v, "rent unless the GPUs will be busy more than ", Fixed{*b.utilization * 100, 0},
                "% of the time for ", years, " years: at ", utilization,
                "% utilization the cloud is cheaper. Fluctuating, one-off or exploratory demand "
                "favours the cloud; long, steady, private work favours owning");
  }
}

// The verdict (the articles' reasoning), also when only one side has a price.
void set_break_even(const Gpu& g, const CostAssumptions& a, Ownership& o) {
  BreakEven& b = o.break_even;
  if (o.cloud && o.on_prem) {
    compare_rent_and_buy(*o.cloud, *o.on_prem, a, b);
  } else if (o.cloud) {
    b.verdict = "rent: no purchase price for " + g.name + " in the catalog (data/gpus.csv)";
  } else if (o.on_prem) {
    // No rent to compare with: no verdict from a missing price. Appended piece by piece (issue
    // 18: the sum of strings made three temporaries and formatted the price into a fourth).
    b.verdict.clear();
    append_text(b.verdict, o.not_rented, "; owning costs ", Money{o.on_prem->usd_per_hour},
                "/hour of use, with nothing to compare it to");
  } else if (!o.not_rented.empty()) {
    b.verdict = o.not_rented + ", and no purchase price in data/gpus.csv";
  }
}

// The figures and texts into `o` (default-constructed), then the assumptions moved into it
// (callers holding theirs by reference pass a copy).
void fill_ownership(const Scenario& s, const std::optional<PerformanceEstimate>& performance,
                    const PowerEstimate& power, CostAssumptions&& a, const Catalog& catalog,
                    const std::string& region, OwnershipText text, const NodePlan* plan,
                    Ownership& o) {
  if (s.gpu) {
    // At most three lines (cloud or not rented, on-prem, the smallest server): one allocation
    // instead of one per doubling (issue 18).
    if (text == OwnershipText::kBasis) o.basis.reserve(3);
    Use use;
    use.tokens_per_s = useful_tokens_per_s(s, performance);
    if (performance && performance->time_to_train_s) use.run_s = *performance->time_to_train_s;
    add_cloud(s, a, catalog, region, use, text, o);
    if (text != OwnershipText::kRentOnly)
      add_on_prem(s, power, a, catalog, plan, use, text, o);
    else if (!o.cloud && use.run_s > 0)  // the run priced on-prem (price_training_run)
      add_on_prem(s, power, a, catalog, plan, use, OwnershipText::kNone, o);
    if (text == OwnershipText::kVerdict || text == OwnershipText::kBasis)
      set_break_even(*s.gpu, a, o);
  }
  o.assumptions = std::move(a);
}

Ownership ownership(const Scenario& s, const std::optional<PerformanceEstimate>& performance,
                    const PowerEstimate& power, CostAssumptions&& a, const Catalog& catalog,
                    const std::string& region, OwnershipText text, const NodePlan* plan) {
  Ownership o;
  fill_ownership(s, performance, power, std::move(a), catalog, region, text, plan, o);
  return o;
}

}  // namespace

Ownership ownership_cost(const Scenario& s, const std::optional<PerformanceEstimate>& performance,
                         const PowerEstimate& power, const CostAssumptions& a,
                         const Catalog& catalog, const std::string& region) {
  return ownership(s, performance, power, CostAssumptions(a), catalog, region,
                   OwnershipText::kBasis, nullptr);
}

Ownership ownership_figures(const Scenario& s,
                            const std::optional<PerformanceEstimate>& performance,
                            const PowerEstimate& power, const CostAssumptions& a,
                            const Catalog& catalog, const std::string& region) {
  return ownership(s, performance, power, CostAssumptions(a), catalog, region, OwnershipText::kNone,
                   nullptr);
}

Ownership ownership_without_basis(const Scenario& s,
                                  const std::optional<PerformanceEstimate>& performance,
                                  const PowerEstimate& power, const CostAssumptions& a,
                                  const Catalog& catalog, const std::string& region) {
  return ownership(s, performance, power, CostAssumptions(a), catalog, region,
                   OwnershipText::kVerdict, nullptr);
}

void estimate_ownership(const Scenario& s, const std::optional<PerformanceEstimate>& performance,
                        const PowerEstimate& power, CostAssumptions&& a, const Catalog& catalog,
                        const NodePlan* plan, OwnershipText text, Ownership& o) {
  fill_ownership(s, performance, power, std::move(a), catalog, "", text, plan, o);
}

// to_json(const Ownership&) is written by the report (src/report/ownership_json.cc).

}  // namespace gpusizer
