#include "hmtt/analysis/hierarchy.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace hmtt::analysis {

struct HierarchySimulator::Node {
  Cache data;
  std::optional<Cache> instruction;
  std::vector<Node*> children;
  Node* parent = nullptr;  // inclusive chains only
  bool inclusive = false;
  LevelConfig config;
};

HierarchySimulator::HierarchySimulator(HierarchySimulator&&) noexcept = default;
HierarchySimulator& HierarchySimulator::operator=(HierarchySimulator&&) noexcept = default;
HierarchySimulator::~HierarchySimulator() = default;

CacheStats LevelResult::combined() const {
  CacheStats s = data;
  if (instruction) {
    const CacheStats& i = *instruction;
    s.reads += i.reads; s.read_hits += i.read_hits;
    s.writes += i.writes; s.write_hits += i.write_hits;
    s.ifetches += i.ifetches; s.ifetch_hits += i.ifetch_hits;
    s.writebacks_in += i.writebacks_in; s.writeback_in_hits += i.writeback_in_hits;
    s.writebacks_out += i.writebacks_out; s.invalidations += i.invalidations;
  }
  return s;
}

Result<HierarchySimulator> HierarchySimulator::create(std::vector<HierarchyConfig> hierarchies) {
  HierarchySimulator sim;
  for (const HierarchyConfig& h : hierarchies) {
    if (h.levels.empty()) return make_error("hierarchy " + h.name + ": no levels");
    std::vector<Node*> chain;
    Node* parent = nullptr;
    for (const LevelConfig& level : h.levels) {
      Node* found = nullptr;
      if (!h.inclusive) {
        const std::vector<Node*>& candidates = parent ? parent->children : sim.roots_;
        for (Node* c : candidates)
          if (!c->inclusive && c->config == level) found = c;
      }
      if (!found) {
        auto data = Cache::create(level.data);
        if (!data) return make_error("hierarchy " + h.name + ": " + data.error().message);
        auto node = std::make_unique<Node>(Node{std::move(*data), std::nullopt, {}, nullptr, h.inclusive, level});
        if (level.instruction) {
          auto ic = Cache::create(*level.instruction);
          if (!ic) return make_error("hierarchy " + h.name + ": " + ic.error().message);
          node->instruction.emplace(std::move(*ic));
        }
        found = node.get();
        if (h.inclusive) found->parent = parent;
        (parent ? parent->children : sim.roots_).push_back(found);
        sim.nodes_.push_back(std::move(node));
      }
      chain.push_back(found);
      parent = found;
    }
    sim.chains_.push_back(std::move(chain));
  }
  sim.configs_ = std::move(hierarchies);
  return sim;
}

std::size_t HierarchySimulator::simulated_caches() const {
  std::size_t n = 0;
  for (const auto& node : nodes_) n += node->instruction ? 2 : 1;
  return n;
}

void HierarchySimulator::back_invalidate(Node& upper, std::uint64_t address, std::uint64_t bytes) {
  auto drop = [&](Cache& c) {
    const std::uint64_t lb = c.config().line_bytes;
    for (std::uint64_t a = address / lb * lb; a < address + bytes; a += lb) c.invalidate(a / lb);
  };
  drop(upper.data);
  if (upper.instruction) drop(*upper.instruction);
  if (upper.parent) back_invalidate(*upper.parent, address, bytes);
}

void HierarchySimulator::access_node(Node& n, std::uint64_t address, CacheOp op) {
  Cache& c = (op == CacheOp::IFetch && n.instruction) ? *n.instruction : n.data;
  const std::uint64_t lb = c.config().line_bytes;
  const std::uint64_t line = address / lb;
  const Cache::Outcome o = c.access(line, op);
  if (o.evicted) {
    if (n.inclusive && n.parent) back_invalidate(*n.parent, o.victim_line * lb, lb);
    if (o.evicted_dirty)
      for (Node* child : n.children) access_node(*child, o.victim_line * lb, CacheOp::Writeback);
  }
  if (!o.hit) {
    if (o.filled) {
      if (op != CacheOp::Writeback) {
        const CacheOp fetch = op == CacheOp::IFetch ? CacheOp::IFetch : CacheOp::Read;
        for (Node* child : n.children) access_node(*child, line * lb, fetch);
      }
    } else {  // write miss, no write-allocate: the write goes below
      for (Node* child : n.children) access_node(*child, line * lb, op);
      return;
    }
  }
  if (op == CacheOp::Write && !c.config().write_back)
    for (Node* child : n.children) access_node(*child, line * lb, CacheOp::Write);
}

void HierarchySimulator::access(const Reference& ref) {
  ++references_;
  const std::uint64_t size = ref.size == 0 ? 1 : ref.size;
  for (Node* root : roots_) {
    const bool ifetch = ref.kind == Kind::IFetch;
    const Cache& c = (ifetch && root->instruction) ? *root->instruction : root->data;
    const std::uint64_t lb = c.config().line_bytes;
    const std::uint64_t first = ref.address / lb;
    // The last byte, saturated at the top of the address space.
    const std::uint64_t end = ref.address > ~std::uint64_t{0} - (size - 1) ? ~std::uint64_t{0} : ref.address + size - 1;
    const std::uint64_t last = end / lb;
    for (std::uint64_t l = first;; ++l) {
      switch (ref.kind) {
        case Kind::Read: access_node(*root, l * lb, CacheOp::Read); break;
        case Kind::Write: access_node(*root, l * lb, CacheOp::Write); break;
        case Kind::IFetch: access_node(*root, l * lb, CacheOp::IFetch); break;
        case Kind::Modify:
          access_node(*root, l * lb, CacheOp::Read);
          access_node(*root, l * lb, CacheOp::Write);
          break;
      }
      if (l == last) break;
    }
  }
}

std::vector<HierarchyResult> HierarchySimulator::results() const {
  std::vector<HierarchyResult> out;
  for (std::size_t h = 0; h < configs_.size(); ++h) {
    HierarchyResult r;
    r.name = configs_[h].name;
    r.references = references_;
    for (const Node* n : chains_[h]) {
      LevelResult l;
      l.name = n->config.name;
      l.data = n->data.stats();
      if (n->instruction) l.instruction = n->instruction->stats();
      r.levels.push_back(std::move(l));
    }
    out.push_back(std::move(r));
  }
  return out;
}

// ---- built-in and text descriptions ----

namespace {

CacheConfig cache(std::string name, std::uint64_t kb, std::uint64_t line, std::uint64_t ways) {
  CacheConfig c;
  c.name = std::move(name);
  c.size_bytes = kb * 1024;
  c.line_bytes = line;
  c.ways = ways;
  return c;
}

HierarchyConfig psnap(int id, std::string arch, std::vector<CacheConfig> levels) {
  HierarchyConfig h;
  h.name = "psnap-" + std::to_string(id) + (arch.empty() ? "" : "-" + arch);
  for (auto& c : levels) {
    LevelConfig l;
    l.name = c.name;
    l.data = std::move(c);
    h.levels.push_back(std::move(l));
  }
  return h;
}

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

std::optional<std::uint64_t> parse_size(const std::string& tok) {
  if (tok.empty()) return std::nullopt;
  std::uint64_t mult = 1;
  std::string digits = tok;
  const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(tok.back())));
  if (last == 'K') mult = 1024;
  if (last == 'M') mult = 1024 * 1024;
  if (last == 'G') mult = 1024ULL * 1024 * 1024;
  if (mult != 1 || last == 'B') digits.pop_back();
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
    return std::nullopt;
  if (digits.size() > 15) return std::nullopt;
  return std::stoull(digits) * mult;
}

std::string size_text(std::uint64_t bytes) {
  if (bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + "M";
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + "K";
  return std::to_string(bytes);
}

}  // namespace

std::vector<HierarchyConfig> psnap_hierarchies() {
  // PSnAP Table 1 (size KB, line bytes, associativity). The Budapest L3 (1024 KB,
  // 48-way, 64 B lines) has 16384 lines, which 48 ways do not divide: we keep the
  // associativity and use 341 sets (1023 KB).
  CacheConfig budapest_l3 = cache("L3", 1024, 64, 48);
  budapest_l3.size_bytes = 341ULL * 48 * 64;
  return {
      psnap(1, "PowerPC", {cache("L1", 32, 128, 2), cache("L2", 1024, 128, 8)}),
      psnap(2, "IT2", {cache("L1", 256, 128, 8), cache("L2", 9216, 128, 12)}),
      psnap(3, "SiCortex", {cache("L1", 64, 64, 2), cache("L2", 512, 64, 16)}),
      psnap(4, "Opteron", {cache("L1", 32, 32, 4), cache("L2", 128, 64, 2)}),
      psnap(5, "Budapest", {cache("L1", 64, 64, 2), cache("L2", 512, 64, 16), budapest_l3}),
      psnap(6, "Power6", {cache("L1", 64, 128, 8), cache("L2", 4096, 128, 8), cache("L3", 16384, 128, 16)}),
      psnap(7, "", {cache("L1", 64, 64, 2), cache("L2", 512, 64, 8)}),
      psnap(8, "", {cache("L1", 64, 64, 2), cache("L2", 512, 64, 32)}),
      psnap(9, "", {cache("L1", 64, 64, 2), cache("L2", 512, 32, 16)}),
      psnap(10, "", {cache("L1", 64, 64, 2), cache("L2", 512, 128, 16)}),
  };
}

Result<std::vector<HierarchyConfig>> parse_hierarchies(std::string_view text, std::string_view file_name) {
  std::vector<HierarchyConfig> out;
  std::istringstream in{std::string(text)};
  std::string raw;
  int line_no = 0;
  auto err = [&](const std::string& why) {
    return make_error(std::string(file_name) + ":" + std::to_string(line_no) + ": " + why);
  };
  while (std::getline(in, raw)) {
    ++line_no;
    const std::size_t hash = raw.find('#');
    std::string line = trim(hash == std::string::npos ? raw : raw.substr(0, hash));
    if (line.empty()) continue;
    std::istringstream words(line);
    std::vector<std::string> tok;
    for (std::string w; words >> w;) tok.push_back(w);
    if (tok[0] == "hierarchy") {
      if (tok.size() < 2) return err("'hierarchy' needs a name");
      HierarchyConfig h;
      h.name = tok[1];
      for (std::size_t i = 2; i < tok.size(); ++i) {
        if (tok[i] == "inclusive") h.inclusive = true;
        else if (tok[i] == "non-inclusive") h.inclusive = false;
        else return err("unknown hierarchy option '" + tok[i] + "' (inclusive, non-inclusive)");
      }
      out.push_back(std::move(h));
      continue;
    }
    if (out.empty()) return err("a level line before any 'hierarchy NAME' line");
    // LEVEL SIZE LINE WAYS [policy] [write-back|write-through] [write-allocate|no-write-allocate] [seed=N]
    if (tok.size() < 4) return err("expected 'LEVEL SIZE LINE WAYS [options]', got '" + line + "'");
    std::string level = tok[0];
    std::string upper = level;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (upper.size() < 2 || upper[0] != 'L' || !std::isdigit(static_cast<unsigned char>(upper[1])))
      return err("level name must be L1, L2, ... or L1I/L1D for a split level, got '" + level + "'");
    char split = 0;
    if (upper.back() == 'I' || upper.back() == 'D') {
      split = upper.back();
      upper.pop_back();
    }
    CacheConfig c;
    c.name = level;
    auto size = parse_size(tok[1]);
    if (!size || *size == 0) return err("bad cache size '" + tok[1] + "' (e.g. 32K, 1M, 4096)");
    auto lb = parse_size(tok[2]);
    if (!lb || *lb == 0) return err("bad line size '" + tok[2] + "'");
    c.size_bytes = *size;
    c.line_bytes = *lb;
    if (tok[3] == "full") {
      c.ways = 0;
    } else {
      auto ways = parse_size(tok[3]);
      if (!ways || *ways == 0) return err("bad associativity '" + tok[3] + "' (a number or 'full')");
      c.ways = *ways;
    }
    for (std::size_t i = 4; i < tok.size(); ++i) {
      const std::string& o = tok[i];
      if (o == "lru" || o == "fifo" || o == "random" || o == "plru") c.policy = o;
      else if (o == "write-back") c.write_back = true;
      else if (o == "write-through") c.write_back = false;
      else if (o == "write-allocate") c.write_allocate = true;
      else if (o == "no-write-allocate") c.write_allocate = false;
      else if (o.rfind("seed=", 0) == 0 && parse_size(o.substr(5))) c.seed = *parse_size(o.substr(5));
      else return err("unknown cache option '" + o + "'");
    }
    auto check = Cache::create(c);
    if (!check) return err(check.error().message);
    HierarchyConfig& h = out.back();
    if (split == 'I' || split == 'D') {
      if (h.levels.empty() || h.levels.back().name != upper) {
        LevelConfig l;
        l.name = upper;
        l.data.name = "";  // placeholder until the D line arrives
        l.data.size_bytes = 0;
        h.levels.push_back(l);
      }
      LevelConfig& l = h.levels.back();
      if (split == 'I') {
        if (l.instruction) return err("second instruction cache for " + upper);
        l.instruction = c;
      } else {
        if (l.data.size_bytes != 0) return err("second data cache for " + upper);
        l.data = c;
      }
    } else {
      if (!h.levels.empty() && h.levels.back().name == upper) return err("level " + upper + " given twice");
      LevelConfig l;
      l.name = upper;
      l.data = c;
      h.levels.push_back(std::move(l));
    }
    const std::string expect = "L" + std::to_string(h.levels.size());
    if (h.levels.back().name != expect) return err("expected level " + expect + ", got " + upper);
  }
  for (const auto& h : out) {
    if (h.levels.empty()) return make_error(std::string(file_name) + ": hierarchy " + h.name + " has no levels");
    for (const auto& l : h.levels)
      if (l.data.size_bytes == 0)
        return make_error(std::string(file_name) + ": hierarchy " + h.name + ": " + l.name +
                          " has an instruction cache but no data cache (add " + l.name + "D)");
  }
  if (out.empty()) return make_error(std::string(file_name) + ": no hierarchy defined");
  return out;
}

Result<std::vector<HierarchyConfig>> load_hierarchies(const std::string& name_or_path) {
  if (name_or_path == "psnap") return psnap_hierarchies();
  std::ifstream f(name_or_path, std::ios::binary);
  if (!f) return make_error(name_or_path + ": cannot open hierarchy file (or built-in name: psnap)");
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse_hierarchies(ss.str(), name_or_path);
}

std::string format_hierarchies(std::span<const HierarchyConfig> hierarchies) {
  std::ostringstream o;
  auto line = [&](const CacheConfig& c, const std::string& name) {
    o << "  " << name << " " << size_text(c.size_bytes) << " " << c.line_bytes << " "
      << (c.ways == 0 ? std::string("full") : std::to_string(c.ways)) << " " << c.policy << " "
      << (c.write_back ? "write-back" : "write-through") << " "
      << (c.write_allocate ? "write-allocate" : "no-write-allocate");
    if (c.policy == "random") o << " seed=" << c.seed;
    o << "\n";
  };
  for (const auto& h : hierarchies) {
    o << "hierarchy " << h.name << (h.inclusive ? " inclusive" : "") << "\n";
    for (const auto& l : h.levels) {
      if (l.instruction) {
        line(*l.instruction, l.name + "I");
        line(l.data, l.name + "D");
      } else {
        line(l.data, l.name);
      }
    }
  }
  return o.str();
}

}  // namespace hmtt::analysis
