#include "hmtt/analysis/page_map.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace hmtt::analysis {

namespace {
std::optional<std::uint64_t> parse_number(const std::string& s) {
  std::uint64_t v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    b += 2;
    base = 16;
  }
  auto [p, ec] = std::from_chars(b, e, v, base);
  if (ec != std::errc() || p != e || b == e) return std::nullopt;
  return v;
}
}  // namespace

void PageMap::add(const PageMapping& m) {
  auto& v = by_page_[m.phys_page];
  auto it = std::upper_bound(v.begin(), v.end(), m.time,
                             [](std::uint64_t t, const PageMapping& x) { return t < x.time; });
  v.insert(it, m);
  ++count_;
}

std::optional<VirtualAddress> PageMap::translate(std::uint64_t phys_address, std::uint64_t time) const {
  auto it = by_page_.find(phys_address / page_bytes_);
  if (it == by_page_.end()) return std::nullopt;
  const auto& v = it->second;
  auto m = std::upper_bound(v.begin(), v.end(), time,
                            [](std::uint64_t t, const PageMapping& x) { return t < x.time; });
  if (m == v.begin()) return std::nullopt;
  --m;
  return VirtualAddress{m->pid, m->virt_page * page_bytes_ + phys_address % page_bytes_};
}

std::map<std::uint64_t, std::uint64_t> PageMap::remap_histogram() const {
  std::map<std::uint64_t, std::uint64_t> h;
  for (const auto& [page, v] : by_page_) ++h[v.size()];
  return h;
}

Result<PageMap> PageMap::parse(std::string_view text, std::string_view file_name, std::uint64_t page_bytes) {
  PageMap pm(page_bytes);
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
    auto where = std::string(file_name) + ":" + std::to_string(no) + ": ";
    if (tok.size() != 4)
      return make_error(where + "expected 'TIME PID PHYS_PAGE VIRT_PAGE', got " + std::to_string(tok.size()) + " fields");
    static const char* names[] = {"time", "pid", "physical page", "virtual page"};
    std::uint64_t v[4];
    for (int i = 0; i < 4; ++i) {
      auto n = parse_number(tok[static_cast<std::size_t>(i)]);
      if (!n) return make_error(where + "bad " + names[i] + " '" + tok[static_cast<std::size_t>(i)] + "'");
      v[i] = *n;
    }
    if (v[1] > 0xffffffffULL) return make_error(where + "pid " + tok[1] + " does not fit 32 bits");
    pm.add({v[0], static_cast<std::uint32_t>(v[1]), v[2], v[3]});
  }
  return pm;
}

Result<PageMap> PageMap::load(const std::string& path, std::uint64_t page_bytes) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return make_error(path + ": cannot open page-map file");
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse(ss.str(), path, page_bytes);
}

}  // namespace hmtt::analysis
