#include "hmtt/analysis/process_interleaving.h"

#include <charconv>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace hmtt::analysis {

std::uint64_t PidList::size() const {
  std::uint64_t n = 0;
  for (const auto& r : runs) n += r.second;
  return n;
}

Result<PidList> PidList::parse(std::string_view text, std::string_view file_name) {
  PidList list;
  std::istringstream in{std::string(text)};
  std::string line;
  int no = 0;
  while (std::getline(in, line)) {
    ++no;
    if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::istringstream words(line);
    std::vector<std::string> tok;
    for (std::string w; words >> w;) tok.push_back(w);
    if (tok.empty()) continue;
    const std::string where = std::string(file_name) + ":" + std::to_string(no) + ": ";
    if (tok.size() > 2) return make_error(where + "expected 'PID [COUNT]'");
    std::uint64_t v[2] = {0, 1};
    for (std::size_t i = 0; i < tok.size(); ++i) {
      auto [p, ec] = std::from_chars(tok[i].data(), tok[i].data() + tok[i].size(), v[i]);
      if (ec != std::errc() || p != tok[i].data() + tok[i].size())
        return make_error(where + "bad " + (i == 0 ? "pid" : "count") + " '" + tok[i] + "'");
    }
    if (v[0] > 0xffffffffULL) return make_error(where + "pid does not fit 32 bits");
    if (v[1] == 0) return make_error(where + "count must be at least 1");
    list.runs.emplace_back(static_cast<std::uint32_t>(v[0]), v[1]);
  }
  return list;
}

Result<PidList> PidList::load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return make_error(path + ": cannot open pid file");
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse(ss.str(), path);
}

std::uint64_t ProcessResult::run_count() const {
  std::uint64_t n = 0;
  for (const auto& [len, c] : runs) n += c;
  return n;
}

std::vector<std::pair<std::uint64_t, double>> ProcessResult::run_cdf() const {
  std::vector<std::pair<std::uint64_t, double>> out;
  const double total = static_cast<double>(run_count());
  std::uint64_t sum = 0;
  for (const auto& [len, c] : runs) {
    sum += c;
    out.emplace_back(len, static_cast<double>(sum) / total);
  }
  return out;
}

std::unique_ptr<AnalysisTool> process_tool_create(const ProcessKnobs& knobs) {
  return std::make_unique<ProcessTool>(knobs);
}

Status ProcessTool::init() {
  if (knobs_.window < 2) return make_error("window must be at least 2");
  if (knobs_.line_bytes == 0) return make_error("line size must be at least 1 byte");
  mixed_.emplace(std::vector<std::uint32_t>{knobs_.window});
  result_ = {};
  result_.mixed.window = knobs_.window;
  return Status::success();
}

std::optional<std::uint32_t> ProcessTool::pid_of(const Reference& r) {
  if (knobs_.pids) {
    while (run_index_ < knobs_.pids->runs.size() && run_left_ == 0) {
      run_left_ = knobs_.pids->runs[run_index_].second;
      if (run_left_ == 0) ++run_index_;
    }
    if (run_index_ >= knobs_.pids->runs.size()) return std::nullopt;
    const std::uint32_t pid = knobs_.pids->runs[run_index_].first;
    if (--run_left_ == 0) ++run_index_;
    return pid;
  }
  if (knobs_.page_map) {
    auto v = knobs_.page_map->translate(r.address, r.time);
    if (!v) return std::nullopt;
    return v->pid;
  }
  if (r.origin == Origin::Dma || r.origin == Origin::DmaModelled) return std::nullopt;  // a device, not a process
  return r.source;
}

Status ProcessTool::process(std::span<const Reference> refs) {
  for (const Reference& r : refs) {
    ++seen_;
    const std::optional<std::uint32_t> pid = pid_of(r);
    if (knobs_.pids && !pid)
      return make_error("pid list has " + std::to_string(knobs_.pids->size()) +
                        " entries but the trace has more references (reference " + std::to_string(seen_ - 1) + ")");
    const std::uint64_t line = r.address / knobs_.line_bytes;
    ++result_.mixed.references;
    if (mixed_->access(line)[0] != 0) ++result_.mixed.stream;
    if (!pid) {
      ++result_.unattributed;
      continue;
    }
    auto it = per_pid_.find(*pid);
    if (it == per_pid_.end())
      it = per_pid_.emplace(*pid, StreamDetector(std::vector<std::uint32_t>{knobs_.window})).first;
    ScrCount& c = result_.per_process[*pid];
    c.window = knobs_.window;
    ++c.references;
    if (it->second.access(line)[0] != 0) ++c.stream;
    if (current_pid_ && *current_pid_ == *pid) {
      ++current_run_;
    } else {
      if (current_pid_) ++result_.runs[current_run_];
      current_pid_ = pid;
      current_run_ = 1;
    }
  }
  return Status::success();
}

Status ProcessTool::finish() {
  if (current_pid_) ++result_.runs[current_run_];
  current_pid_.reset();
  if (knobs_.pids && knobs_.pids->size() != seen_)
    return make_error("pid list has " + std::to_string(knobs_.pids->size()) + " entries but the trace has " +
                      std::to_string(seen_) + " references");
  return Status::success();
}

void ProcessTool::print(std::ostream& out) const {
  out << "processes: SCR (window " << knobs_.window << ") mixed " << std::fixed << std::setprecision(2)
      << 100 * result_.mixed.scr() << " %\n";
  for (const auto& [pid, c] : result_.per_process)
    out << "  pid " << std::setw(6) << pid << ": " << c.references << " references, SCR " << 100 * c.scr() << " %\n";
  if (result_.unattributed) out << "  references without a pid: " << result_.unattributed << "\n";
  out << "  runs between process switches: " << result_.run_count() << "; CDF:";
  int shown = 0;
  for (const auto& [len, f] : result_.run_cdf()) {
    if (shown++ == 10) break;
    out << " <=" << len << ":" << std::setprecision(3) << f;
  }
  out << "\n";
  out.unsetf(std::ios::fixed);
}

Json ProcessTool::to_json() const {
  Json j;
  j["tool"] = "process";
  j["window"] = knobs_.window;
  j["mixed_scr"] = result_.mixed.scr();
  Json p = Json::array();
  for (const auto& [pid, c] : result_.per_process)
    p.push_back({{"pid", pid}, {"references", c.references}, {"stream", c.stream}, {"scr", c.scr()}});
  j["processes"] = p;
  j["unattributed"] = result_.unattributed;
  Json runs = Json::array();
  for (const auto& [len, f] : result_.run_cdf()) runs.push_back({{"run_length", len}, {"cdf", f}});
  j["run_length_cdf"] = runs;
  j["runs"] = result_.run_count();
  return j;
}

}  // namespace hmtt::analysis
