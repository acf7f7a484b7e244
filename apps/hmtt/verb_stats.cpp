// hmtt stats STORE [--json]: the board's online-unit reports in a trace store
// (the Statistic Unit's and the RDHPU's REPORT records, store table `report`):
// bandwidth timeline per interval, ACTIVEs per bank as a grid, row-buffer hit
// ratio, reuse-distance histogram and hot pages (docs/receiver.md "hmtt stats").
#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "hmtt/host/board_stats.h"
#include "hmtt/store/store.h"
#include "verb.h"

namespace {

using namespace hmtt;

struct StatsOptions {
  std::string file;
  bool json = false;
  std::uint32_t interval = 0;       // cycles per interval (0: estimated)
  unsigned bytes_per_access = 64;   // a READ/WRITE moves one burst: BL8 x 8 bytes
  unsigned top = 10;                // hot pages to print
  unsigned su_phys_bits = 32;
  unsigned rdhpu_depth = 128;
  bool all_intervals = false;       // text: every interval of the timeline, not only the first and last 10
};

double ratio(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b); }

double mb_per_s(std::uint64_t accesses, unsigned bytes, std::uint32_t cycles, std::uint64_t tick_ps) {
  if (cycles == 0 || tick_ps == 0) return 0.0;
  const double seconds = static_cast<double>(cycles) * static_cast<double>(tick_ps) * 1e-12;
  return static_cast<double>(accesses) * bytes / seconds / 1e6;
}

nlohmann::ordered_json to_json(const host::BoardStats& b, const StatsOptions& o, std::uint64_t tick_ps) {
  nlohmann::ordered_json j;
  j["board"] = b.board;
  j["interval_cycles"] = b.interval_cycles;
  j["interval_cycles_source"] = b.interval_estimated ? "estimated" : "option";
  if (b.has_su) {
    const host::SuSummary& s = b.su;
    nlohmann::ordered_json su;
    su["ranks"] = s.ranks;
    su["intervals"] = s.timeline.size();
    su["missing_intervals"] = s.missing;
    su["reads"] = s.reads;
    su["writes"] = s.writes;
    su["row_hits"] = s.row_hits;
    su["row_misses"] = s.row_misses;
    su["row_hit_ratio"] = ratio(s.row_hits, s.row_hits + s.row_misses);
    nlohmann::ordered_json banks = nlohmann::ordered_json::array();
    for (unsigned r = 0; r < s.ranks; ++r)
      banks.push_back(std::vector<std::uint64_t>(s.bank_activates.begin() + 8 * r, s.bank_activates.begin() + 8 * (r + 1)));
    su["bank_activates"] = banks;
    su["address_bit_toggles"] = s.bit_toggles;
    nlohmann::ordered_json tl = nlohmann::ordered_json::array();
    for (const host::SuInterval& iv : s.timeline)
      tl.push_back({{"interval", iv.interval},
                    {"time", iv.time},
                    {"reads", iv.reads},
                    {"writes", iv.writes},
                    {"activates", iv.activates},
                    {"row_hits", iv.row_hits},
                    {"row_misses", iv.row_misses},
                    {"mb_per_s", mb_per_s(iv.reads + iv.writes, o.bytes_per_access, b.interval_cycles, tick_ps)}});
    su["timeline"] = tl;
    j["su"] = su;
  }
  if (b.has_rdhpu) {
    const host::RdhpuSummary& r = b.rdhpu;
    nlohmann::ordered_json rd;
    rd["depth"] = r.depth;
    rd["hot_k"] = r.hot_k;
    rd["intervals"] = r.intervals;
    rd["missing_intervals"] = r.missing;
    nlohmann::ordered_json h = nlohmann::ordered_json::array();
    const auto bins = static_cast<unsigned>(r.histogram.size());
    for (unsigned i = 0; i < bins; ++i) h.push_back({{"bin", host::distance_bin_label(i, bins)}, {"count", r.histogram[i]}});
    rd["histogram"] = h;
    nlohmann::ordered_json hp = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < r.hot_pages.size() && i < o.top; ++i) {
      const host::HotPageTotal& p = r.hot_pages[i];
      hp.push_back({{"page", p.page}, {"count", p.count}, {"err", p.err}, {"intervals", p.intervals}});
    }
    rd["hot_pages"] = hp;
    j["rdhpu"] = rd;
  }
  return j;
}

void print_text(const host::BoardStats& b, const StatsOptions& o, std::uint64_t tick_ps) {
  std::printf("board %u: interval %u cycles (%s)\n", b.board, b.interval_cycles,
              b.interval_estimated ? "estimated from the report times; --interval to set it" : "--interval");
  if (b.has_su) {
    const host::SuSummary& s = b.su;
    std::printf("\nStatistic Unit: %zu intervals (%llu missing), %u rank(s)\n", s.timeline.size(),
                static_cast<unsigned long long>(s.missing), s.ranks);
    std::printf("  %10s %10s %10s %10s %10s\n", "interval", "reads", "writes", "activates", "MB/s");
    const std::size_t n = s.timeline.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (!o.all_intervals && n > 20 && i == 10) {
        std::printf("  %10s (%zu intervals; --all-intervals prints them)\n", "...", n - 20);
        i = n - 10;
      }
      const host::SuInterval& iv = s.timeline[i];
      std::printf("  %10llu %10llu %10llu %10llu %10.1f\n", static_cast<unsigned long long>(iv.interval),
                  static_cast<unsigned long long>(iv.reads), static_cast<unsigned long long>(iv.writes),
                  static_cast<unsigned long long>(iv.activates),
                  mb_per_s(iv.reads + iv.writes, o.bytes_per_access, b.interval_cycles, tick_ps));
    }
    std::printf("  total: %llu reads, %llu writes\n", static_cast<unsigned long long>(s.reads),
                static_cast<unsigned long long>(s.writes));
    std::printf("\n  row buffer: %llu hits, %llu misses, hit ratio %.4f\n", static_cast<unsigned long long>(s.row_hits),
                static_cast<unsigned long long>(s.row_misses), ratio(s.row_hits, s.row_hits + s.row_misses));
    std::uint64_t most = 1;
    for (auto v : s.bank_activates) most = std::max(most, v);
    std::printf("\n  ACTIVEs per bank (heat: ' .:-=+*#%%@' of the busiest bank, %llu)\n",
                static_cast<unsigned long long>(most));
    std::printf("  %6s", "");
    for (unsigned bank = 0; bank < 8; ++bank) std::printf(" %9s%u", "bank ", bank);
    std::printf("\n");
    static const char kShades[] = " .:-=+*#%@";
    for (unsigned r = 0; r < s.ranks; ++r) {
      std::printf("  rank %u", r);
      for (unsigned bank = 0; bank < 8; ++bank) {
        const std::uint64_t v = s.bank_activates[8 * r + bank];
        const char shade = kShades[std::min<std::uint64_t>(9, v * 9 / most)];
        std::printf(" %c%9llu", shade, static_cast<unsigned long long>(v));
      }
      std::printf("\n");
    }
  }
  if (b.has_rdhpu) {
    const host::RdhpuSummary& r = b.rdhpu;
    std::uint64_t total = 0;
    for (auto v : r.histogram) total += v;
    std::printf("\nRDHPU: %llu intervals (%llu missing), stack depth %u, %u hot-page entries, %llu accesses\n",
                static_cast<unsigned long long>(r.intervals), static_cast<unsigned long long>(r.missing), r.depth,
                r.hot_k, static_cast<unsigned long long>(total));
    std::printf("  reuse distance (distinct 4 KiB pages between accesses to a page)\n");
    const auto bins = static_cast<unsigned>(r.histogram.size());
    for (unsigned i = 0; i < bins; ++i) {
      const double share = ratio(r.histogram[i], total);
      std::printf("  %8s %12llu %6.2f%% %s\n", host::distance_bin_label(i, bins).c_str(),
                  static_cast<unsigned long long>(r.histogram[i]), 100.0 * share,
                  std::string(static_cast<std::size_t>(share * 40.0 + 0.5), '#').c_str());
    }
    std::printf("\n  hot pages (summed over intervals; count - err <= accesses <= count; by count - err)\n");
    std::printf("  %14s %12s %12s %12s %10s\n", "page", "count", "err", "count-err", "intervals");
    for (std::size_t i = 0; i < r.hot_pages.size() && i < o.top; ++i) {
      const host::HotPageTotal& p = r.hot_pages[i];
      std::printf("  %#14llx %12llu %12llu %12llu %10llu\n", static_cast<unsigned long long>(p.page),
                  static_cast<unsigned long long>(p.count), static_cast<unsigned long long>(p.err),
                  static_cast<unsigned long long>(p.count - p.err), static_cast<unsigned long long>(p.intervals));
    }
  }
}

int run_stats(const StatsOptions& o) {
  const std::string verb = "stats";
  if (!store::looks_like_store(o.file))
    return app::fail(verb, make_error(o.file + ": not an hmtt trace store (make one with hmtt capture)"));
  auto reader = store::StoreReader::open(o.file);
  if (!reader) return app::fail(verb, reader.error());
  auto reports = (*reader)->reports();
  if (!reports) return app::fail(verb, reports.error());
  if (reports->empty())
    return app::fail(verb, make_error(o.file + ": the store holds no board reports (capture a board with its "
                                               "Statistic Unit or RDHPU on: hmtt sim --su-interval/--rdhpu-interval)"));
  host::BoardStatsOptions bo;
  bo.su_phys_bits = o.su_phys_bits;
  bo.rdhpu_depth = o.rdhpu_depth;
  bo.interval_cycles = o.interval;
  auto stats = host::summarize_reports(*reports, bo);
  if (!stats) return app::fail(verb, make_error(o.file + ": " + stats.error().message));
  const std::uint64_t tick_ps = (*reader)->info().tick_ps;
  if (o.json) {
    nlohmann::ordered_json j;
    j["file"] = o.file;
    j["tick_ps"] = tick_ps;
    j["bytes_per_access"] = o.bytes_per_access;
    nlohmann::ordered_json boards = nlohmann::ordered_json::array();
    for (const auto& b : *stats) boards.push_back(to_json(b, o, tick_ps));
    j["boards"] = boards;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s: %zu reports, %llu ps per cycle\n", o.file.c_str(), reports->size(),
                static_cast<unsigned long long>(tick_ps));
    for (const auto& b : *stats) {
      std::printf("\n");
      print_text(b, o, tick_ps);
    }
  }
  return app::kExitOk;
}

}  // namespace

void setup_stats(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<StatsOptions>();
  CLI::App* sub = app.add_subcommand(
      "stats", "Print the board's Statistic Unit and RDHPU reports in a store: bandwidth per interval, ACTIVEs per "
               "bank, row-buffer hit ratio, reuse-distance histogram, hot pages");
  sub->add_option("STORE", opt->file, "the trace store (hmtt capture of a board with its units on)")->required();
  sub->add_flag("--json", opt->json, "print the figures as JSON");
  sub->add_option("--interval", opt->interval,
                  "board cycles per interval, as the board was set (hmtt sim --su-interval); 0: estimate from the "
                  "report times")
      ->capture_default_str();
  sub->add_option("--bytes-per-access", opt->bytes_per_access, "bytes one READ/WRITE moves (BL8 on a 64-bit bus: 64)")
      ->capture_default_str();
  sub->add_option("--top", opt->top, "hot pages to print")->capture_default_str();
  sub->add_option("--su-phys-bits", opt->su_phys_bits, "the Statistic Unit's address bits (board default 32)")
      ->capture_default_str();
  sub->add_option("--rdhpu-depth", opt->rdhpu_depth, "the RDHPU's stack depth (board default 128)")
      ->capture_default_str();
  sub->add_flag("--all-intervals", opt->all_intervals, "print every interval of the timeline (text output)");
  sub->callback([opt, &exit_code] { exit_code = run_stats(*opt); });
}
