#include "hmtt/chameleon/signature.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace hmtt::chameleon {

namespace {

bool power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Reads an unsigned count array `value` named `name` of exactly `n` entries
// (with `pad`, shorter arrays are zero-padded: trailing empty bins are not written).
Result<std::vector<std::uint64_t>> count_array(const Json& value, std::size_t n, bool pad, const std::string& name) {
  if (!value.is_array()) return make_error(name + ": not an array");
  if (value.size() > n || (!pad && value.size() != n))
    return make_error(name + ": has " + std::to_string(value.size()) + " entries, expected " + std::to_string(n));
  std::vector<std::uint64_t> out(n, 0);
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto& v = value[i];
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
      return make_error(name + "[" + std::to_string(i) + "]: not an unsigned integer");
    out[i] = v.get<std::uint64_t>();
  }
  return out;
}

Result<std::vector<std::uint64_t>> counts(const Json& j, const char* field, std::size_t n, bool pad,
                                          const std::string& where) {
  const auto it = j.find(field);
  if (it == j.end()) return make_error(where + "." + field + ": missing");
  return count_array(*it, n, pad, where + "." + field);
}

// A table of `rows` rows of `cols` counts (rows may be missing at the end).
Result<std::vector<std::uint64_t>> table(const Json& j, const char* field, std::size_t rows, std::size_t cols,
                                         const std::string& where) {
  const std::string name = where + "." + field;
  const auto it = j.find(field);
  if (it == j.end()) return make_error(name + ": missing");
  if (!it->is_array()) return make_error(name + ": not an array");
  if (it->size() > rows)
    return make_error(name + ": has " + std::to_string(it->size()) + " rows, expected " + std::to_string(rows));
  std::vector<std::uint64_t> out(rows * cols, 0);
  for (std::size_t r = 0; r < it->size(); ++r) {
    auto v = count_array((*it)[r], cols, false, name + "[" + std::to_string(r) + "]");
    if (!v) return v.error();
    std::copy(v->begin(), v->end(), out.begin() + static_cast<std::ptrdiff_t>(r * cols));
  }
  return out;
}

Result<std::uint64_t> count(const Json& j, const char* field, const std::string& where) {
  const auto it = j.find(field);
  if (it == j.end()) return make_error(where + "." + field + ": missing");
  if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<std::int64_t>() >= 0))
    return make_error(where + "." + field + ": not an unsigned integer");
  return it->get<std::uint64_t>();
}

}  // namespace

std::size_t size_slot(std::uint32_t bytes) {
  if (bytes <= 1) return 0;
  return std::min<std::size_t>(static_cast<std::size_t>(std::bit_width(bytes - 1u)), kSizeSlots - 1);
}

std::size_t SignatureShape::levels() const {
  return static_cast<std::size_t>(std::countr_zero(block_bytes) - std::countr_zero(word_bytes));
}

std::size_t SignatureShape::fill_levels() const {
  return fill_bytes ? static_cast<std::size_t>(std::countr_zero(block_bytes / fill_bytes)) : 0;
}

std::size_t SignatureShape::line_levels() const {
  if (line_bytes == 0) return 0;
  return static_cast<std::size_t>(std::countr_zero(block_bytes) - std::countr_zero(line_bytes));
}

std::size_t SignatureShape::layout_bins() const {
  return layout_bytes ? 1 + static_cast<std::size_t>(std::countr_zero(layout_blocks())) : 0;
}

std::size_t SignatureShape::layout_bin(std::uint64_t distance) { return static_cast<std::size_t>(std::bit_width(distance)); }

std::size_t SignatureShape::histogram_bins() const { return 1 + kOctaves * sub_bins; }

std::size_t SignatureShape::histogram_bin(std::uint64_t distance) const {
  if (distance == 0) return 0;
  const auto k = static_cast<std::size_t>(std::bit_width(distance));  // distance in [2^(k-1), 2^k)
  if (k > kOctaves) return histogram_bins() - 1;
  const std::uint64_t base = std::uint64_t{1} << (k - 1);
  const std::uint64_t slice = (distance - base) * sub_bins / base;  // base < 2^40, sub_bins <= 64: no overflow
  return 1 + (k - 1) * sub_bins + static_cast<std::size_t>(slice);
}

std::size_t SignatureShape::age_bin(std::uint64_t age) const {
  const auto k = static_cast<std::size_t>(std::bit_width(age > 0 ? age - 1 : 0));
  return std::min<std::size_t>((k + 1) / 2, age_bins - 1);
}

std::size_t SignatureShape::alpha_bin(std::uint64_t distance) {
  const auto k = static_cast<std::size_t>(std::bit_width(distance));
  return k < kAlphaBins ? k : kAlphaBins - 1;
}

std::pair<std::uint64_t, std::uint64_t> SignatureShape::histogram_range(std::size_t bin) const {
  if (bin == 0) return {0, 1};
  const std::size_t k = (bin - 1) / sub_bins + 1;
  const std::uint64_t slice = (bin - 1) % sub_bins;
  const std::uint64_t base = std::uint64_t{1} << (k - 1);
  // d is in slice s when floor((d - base) * S / base) == s, i.e. d - base >= ceil(s * base / S).
  auto start = [&](std::uint64_t s) { return base + (s * base + sub_bins - 1) / sub_bins; };
  return {start(slice), start(slice + 1)};
}

Status SignatureShape::validate() const {
  if (!power_of_two(block_bytes)) return make_error("block_bytes: must be a power of two");
  if (!power_of_two(word_bytes)) return make_error("word_bytes: must be a power of two");
  if (word_bytes >= block_bytes) return make_error("word_bytes: must be smaller than block_bytes");
  if (levels() > 12) return make_error("block_bytes: at most 4096 words per block (block / word <= 2^12)");
  if (!power_of_two(sub_bins) || sub_bins > 64) return make_error("sub_bins: must be a power of two <= 64");
  if (age_bins == 0 || age_bins > 16) return make_error("age_bins: must be in 1 .. 16");
  if (line_bytes != 0 && (!power_of_two(line_bytes) || line_bytes <= word_bytes || line_bytes >= block_bytes))
    return make_error("line_bytes: must be 0 or a power of two between word_bytes and block_bytes (exclusive)");
  if (fill_bytes != 0 && (!power_of_two(fill_bytes) || fill_bytes < word_bytes || fill_bytes >= block_bytes))
    return make_error("fill_bytes: must be 0 or a power of two from word_bytes to half of block_bytes");
  if (layout_bytes != 0 && (!power_of_two(layout_bytes) || layout_bytes <= block_bytes || layout_bytes > (std::uint64_t{1} << 40)))
    return make_error("layout_bytes: must be 0 or a power of two above block_bytes, at most 2^40");
  return Status::success();
}

MemorySignature MemorySignature::empty(const SignatureShape& shape) {
  MemorySignature s;
  s.shape = shape;
  s.reuse.assign(shape.histogram_bins(), 0);
  s.alpha_yes.assign(kAlphaBins * shape.alpha_row(), 0);
  s.alpha_no.assign(kAlphaBins * shape.alpha_row(), 0);
  s.first_left.assign(shape.levels(), 0);
  s.first_right.assign(shape.levels(), 0);
  s.line_reuse.assign(shape.line_widths() * kAlphaBins * shape.line_row(), 0);
  s.block_fill.assign(kAlphaBins * shape.fill_row(), 0);
  s.layout_bins.assign(shape.layout_bins(), 0);
  s.layout_streams.assign(shape.layout_bytes ? kLayoutStreams : 0, 0);
  return s;
}

double MemorySignature::alpha(std::size_t bin, std::size_t level, double fallback) const {
  std::uint64_t y = 0, n = 0;
  for (std::size_t state = 0; state < shape.node_states(); ++state) {
    const std::size_t i = bin * shape.alpha_row() + state * shape.levels() + level;
    y += alpha_yes[i];
    n += alpha_yes[i] + alpha_no[i];
  }
  return n ? static_cast<double>(y) / static_cast<double>(n) : fallback;
}

double MemorySignature::hit_ratio(std::uint64_t depth) const {
  if (references == 0) return 0;
  std::uint64_t hits = 0;
  for (std::size_t b = 0; b < reuse.size(); ++b)
    if (shape.histogram_range(b).second <= depth) hits += reuse[b];
  return static_cast<double>(hits) / static_cast<double>(references);
}

std::vector<double> MemorySignature::cdf() const {
  std::vector<double> out;
  for (std::size_t k = 0; k < kCdfDepths; ++k) out.push_back(hit_ratio(std::uint64_t{1} << k));
  return out;
}

Status MemorySignature::add(const MemorySignature& other) {
  if (!(shape == other.shape)) return make_error("signatures of different shapes cannot be added");
  references += other.references;
  cold += other.cold;
  auto sum = [](std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) a[i] += b[i];
  };
  sum(reuse, other.reuse);
  sum(alpha_yes, other.alpha_yes);
  sum(alpha_no, other.alpha_no);
  sum(first_left, other.first_left);
  sum(first_right, other.first_right);
  sum(line_reuse, other.line_reuse);
  if (block_fill.size() != other.block_fill.size()) block_fill.clear();  // one lacks them: so does the sum
  sum(block_fill, other.block_fill);
  for (std::size_t k = 0; k < kinds.size(); ++k) kinds[k] += other.kinds[k];
  for (std::size_t k = 0; k < sizes.size(); ++k) sizes[k] += other.sizes[k];
  sum(layout_bins, other.layout_bins);
  sum(layout_streams, other.layout_streams);
  for (const auto& [d, c] : other.layout_exact) layout_exact[d] += c;
  compact_layout();
  return Status::success();
}

void MemorySignature::compact_layout() {
  if (layout_exact.size() <= kLayoutExact) return;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> by_count(layout_exact.begin(), layout_exact.end());
  std::stable_sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (std::size_t i = kLayoutExact; i < by_count.size(); ++i) {
    const std::size_t bin = SignatureShape::layout_bin(by_count[i].first);
    if (bin < layout_bins.size()) layout_bins[bin] += by_count[i].second;
    layout_exact.erase(by_count[i].first);
  }
}

Json MemorySignature::to_json() const {
  Json j;
  j["references"] = references;
  j["cold"] = cold;
  Json k = Json::object();
  for (int i = 0; i < kKindCount; ++i) k[std::string(kind_name(static_cast<Kind>(i)))] = kinds[static_cast<std::size_t>(i)];
  j["kinds"] = k;
  Json sz = Json::object();  // bytes -> references, the sizes seen
  for (std::size_t i = 0; i < kSizeSlots; ++i)
    if (sizes[i]) sz[std::to_string(std::uint64_t{1} << i)] = sizes[i];
  j["sizes"] = sz;
  // Derived, for people: the paper's 17-point CDF.
  Json cdf_j = Json::object();
  Json depths = Json::array(), hits = Json::array();
  const auto c = cdf();
  for (std::size_t i = 0; i < kCdfDepths; ++i) {
    depths.push_back(std::uint64_t{1} << i);
    hits.push_back(std::round(c[i] * 1e6) / 1e6);
  }
  cdf_j["depths"] = depths;
  cdf_j["hit"] = hits;
  j["cdf"] = cdf_j;
  // The histogram without its trailing empty bins.
  std::size_t used = reuse.size();
  while (used > 0 && reuse[used - 1] == 0) --used;
  j["reuse"] = std::vector<std::uint64_t>(reuse.begin(), reuse.begin() + static_cast<std::ptrdiff_t>(used));
  const std::size_t levels = shape.levels();
  Json yes = Json::array(), no = Json::array(), alpha_j = Json::array();
  for (std::size_t b = 0; b < kAlphaBins; ++b) {
    Json y = Json::array(), n = Json::array(), a = Json::array();
    for (std::size_t i = 0; i < shape.alpha_row(); ++i) {
      y.push_back(alpha_yes[b * shape.alpha_row() + i]);
      n.push_back(alpha_no[b * shape.alpha_row() + i]);
    }
    for (std::size_t l = 0; l < levels; ++l) {
      const double v = alpha(b, l, -1);
      a.push_back(v < 0 ? Json(nullptr) : Json(std::round(v * 1e4) / 1e4));
    }
    yes.push_back(y);
    no.push_back(n);
    alpha_j.push_back(a);
  }
  j["alpha"] = alpha_j;
  j["alpha_yes"] = yes;
  j["alpha_no"] = no;
  j["first_left"] = first_left;
  j["first_right"] = first_right;
  if (shape.line_bytes) {
    // One row per alpha bin, without its trailing empty columns (most are: a
    // line distance is at least the block distance and rarely far above it).
    Json rows = Json::array();
    const std::size_t cols = shape.line_row();
    for (std::size_t b = 0; b < shape.line_widths() * kAlphaBins; ++b) {
      const auto row = line_reuse.begin() + static_cast<std::ptrdiff_t>(b * cols);
      std::size_t row_used = cols;
      while (row_used > 0 && row[static_cast<std::ptrdiff_t>(row_used - 1)] == 0) --row_used;
      rows.push_back(std::vector<std::uint64_t>(row, row + static_cast<std::ptrdiff_t>(row_used)));
    }
    j["line_reuse"] = rows;
  }
  if (!block_fill.empty()) {
    Json rows = Json::array();
    const std::size_t cols = shape.fill_row();
    for (std::size_t b = 0; b < kAlphaBins; ++b) {
      const auto row = block_fill.begin() + static_cast<std::ptrdiff_t>(b * cols);
      std::size_t row_used = cols;
      while (row_used > 0 && row[static_cast<std::ptrdiff_t>(row_used - 1)] == 0) --row_used;
      rows.push_back(std::vector<std::uint64_t>(row, row + static_cast<std::ptrdiff_t>(row_used)));
    }
    j["block_fill"] = rows;
  }
  if (shape.layout_bytes) {
    Json exact = Json::array();
    for (const auto& [d, n] : layout_exact) exact.push_back(Json::array({d, n}));
    std::size_t bins_used = layout_bins.size();
    while (bins_used > 0 && layout_bins[bins_used - 1] == 0) --bins_used;
    j["layout"] = {{"streams", layout_streams},
                   {"exact", exact},
                   {"bins", std::vector<std::uint64_t>(layout_bins.begin(), layout_bins.begin() + static_cast<std::ptrdiff_t>(bins_used))}};
  }
  return j;
}

Result<MemorySignature> MemorySignature::from_json(const Json& j, const SignatureShape& shape,
                                                   const std::string& where) {
  if (auto s = shape.validate(); !s) return s.error();
  if (!j.is_object()) return make_error(where + ": not an object");
  MemorySignature s = empty(shape);
  auto refs = count(j, "references", where);
  if (!refs) return refs.error();
  s.references = *refs;
  auto cold = count(j, "cold", where);
  if (!cold) return cold.error();
  s.cold = *cold;
  const auto kinds = j.find("kinds");
  if (kinds == j.end() || !kinds->is_object()) return make_error(where + ".kinds: missing or not an object");
  for (int i = 0; i < kKindCount; ++i) {
    const std::string name(kind_name(static_cast<Kind>(i)));
    auto v = count(*kinds, name.c_str(), where + ".kinds");
    if (!v) return v.error();
    s.kinds[static_cast<std::size_t>(i)] = *v;
  }
  // Access sizes (absent in signatures written before them: the word size).
  if (const auto sz = j.find("sizes"); sz != j.end()) {
    if (!sz->is_object()) return make_error(where + ".sizes: not an object");
    std::uint64_t by_size = 0;
    for (const auto& [key, value] : sz->items()) {
      std::size_t slot = kSizeSlots;
      for (std::size_t i = 0; i < kSizeSlots; ++i)
        if (key == std::to_string(std::uint64_t{1} << i)) slot = i;
      if (slot == kSizeSlots) return make_error(where + ".sizes." + key + ": not a power of two from 1 to 4096");
      auto v = count(*sz, key.c_str(), where + ".sizes");
      if (!v) return v.error();
      s.sizes[slot] = *v;
      if (by_size > UINT64_MAX - *v) return make_error(where + ".sizes: counts overflow");
      by_size += *v;
    }
    if (by_size != s.references)
      return make_error(where + ".sizes: sum " + std::to_string(by_size) + " differs from references " +
                        std::to_string(s.references));
  }
  const std::size_t levels = shape.levels();
  auto reuse = counts(j, "reuse", shape.histogram_bins(), true, where);
  if (!reuse) return reuse.error();
  s.reuse = std::move(*reuse);
  auto yes = table(j, "alpha_yes", kAlphaBins, shape.alpha_row(), where);
  if (!yes) return yes.error();
  s.alpha_yes = std::move(*yes);
  auto no = table(j, "alpha_no", kAlphaBins, shape.alpha_row(), where);
  if (!no) return no.error();
  s.alpha_no = std::move(*no);
  auto left = counts(j, "first_left", levels, false, where);
  if (!left) return left.error();
  s.first_left = std::move(*left);
  auto right = counts(j, "first_right", levels, false, where);
  if (!right) return right.error();
  s.first_right = std::move(*right);
  // Consistency: every reference is cold or has one distance; kinds sum to the references.
  std::uint64_t total = s.cold;
  for (std::uint64_t c : s.reuse) {
    if (total > UINT64_MAX - c) return make_error(where + ".reuse: counts overflow");
    total += c;
  }
  if (total != s.references)
    return make_error(where + ".reuse: cold + reuse counts = " + std::to_string(total) + ", but references = " +
                      std::to_string(s.references));
  std::uint64_t by_kind = 0;
  for (std::uint64_t c : s.kinds) by_kind += c;
  if (by_kind != s.references)
    return make_error(where + ".kinds: sum " + std::to_string(by_kind) + " differs from references " +
                      std::to_string(s.references));
  if (shape.line_bytes) {
    const std::string name = where + ".line_reuse";
    const auto it = j.find("line_reuse");
    if (it == j.end()) return make_error(name + ": missing");
    if (!it->is_array()) return make_error(name + ": not an array");
    const std::size_t rows = shape.line_widths() * kAlphaBins;
    if (it->size() != rows)
      return make_error(name + ": has " + std::to_string(it->size()) + " rows, expected " + std::to_string(rows));
    const std::size_t cols = shape.line_row();
    std::vector<std::uint64_t> line_total(shape.line_widths(), 0);
    for (std::size_t r = 0; r < it->size(); ++r) {
      auto v = count_array((*it)[r], cols, true, name + "[" + std::to_string(r) + "]");
      if (!v) return v.error();
      std::uint64_t& width_total = line_total[r / kAlphaBins];
      for (std::size_t c = 0; c < cols; ++c) {
        s.line_reuse[r * cols + c] = (*v)[c];
        if (width_total > UINT64_MAX - (*v)[c]) return make_error(name + ": counts overflow");
        width_total += (*v)[c];
      }
    }
    // Every block reuse (not a cold reference) has exactly one line distance per width.
    const std::uint64_t reuses = s.references - std::min(s.references, s.cold);
    for (std::size_t w = 0; w < line_total.size(); ++w)
      if (line_total[w] != reuses)
        return make_error(name + ": counts of width " + std::to_string(shape.line_bytes << w) + " sum to " +
                          std::to_string(line_total[w]) + ", but the block reuses are " + std::to_string(reuses));
  }
  s.block_fill.clear();
  if (const auto it = j.find("block_fill"); it != j.end()) {  // absent in signatures written before it
    const std::string name = where + ".block_fill";
    if (!shape.fill_bytes) return make_error(name + ": present, but the profile has no fill_bytes");
    if (!it->is_array()) return make_error(name + ": not an array");
    if (it->size() != kAlphaBins)
      return make_error(name + ": has " + std::to_string(it->size()) + " rows, expected " + std::to_string(kAlphaBins));
    const std::size_t cols = shape.fill_row();
    s.block_fill.assign(kAlphaBins * cols, 0);
    std::uint64_t filled = 0;
    for (std::size_t r = 0; r < kAlphaBins; ++r) {
      auto v = count_array((*it)[r], cols, true, name + "[" + std::to_string(r) + "]");
      if (!v) return v.error();
      for (std::size_t c = 0; c < cols; ++c) {
        s.block_fill[r * cols + c] = (*v)[c];
        if (filled > UINT64_MAX - (*v)[c]) return make_error(name + ": counts overflow");
        filled += (*v)[c];
      }
    }
    // One count per block reuse.
    const std::uint64_t reuses = s.references - std::min(s.references, s.cold);
    if (filled != reuses)
      return make_error(name + ": counts sum to " + std::to_string(filled) + ", but the block reuses are " +
                        std::to_string(reuses));
  }
  if (shape.layout_bytes) {
    const std::string name = where + ".layout";
    const auto it = j.find("layout");
    if (it == j.end()) return make_error(name + ": missing");
    if (!it->is_object()) return make_error(name + ": not an object");
    auto bins = counts(*it, "bins", shape.layout_bins(), true, name);
    if (!bins) return bins.error();
    s.layout_bins = std::move(*bins);
    auto streams = counts(*it, "streams", kLayoutStreams, false, name);
    if (!streams) return streams.error();
    s.layout_streams = std::move(*streams);
    const auto ex = it->find("exact");
    if (ex == it->end()) return make_error(name + ".exact: missing");
    if (!ex->is_array()) return make_error(name + ".exact: not an array");
    if (ex->size() > kLayoutExact)
      return make_error(name + ".exact: has " + std::to_string(ex->size()) + " entries, at most " + std::to_string(kLayoutExact));
    std::uint64_t placed = 0;
    for (std::size_t i = 0; i < ex->size(); ++i) {
      const std::string en = name + ".exact[" + std::to_string(i) + "]";
      auto pair = count_array((*ex)[i], 2, false, en);
      if (!pair) return pair.error();
      if ((*pair)[0] >= shape.layout_blocks())
        return make_error(en + ": distance " + std::to_string((*pair)[0]) + " is not below the layout span of " +
                          std::to_string(shape.layout_blocks()) + " blocks");
      if (!s.layout_exact.emplace((*pair)[0], (*pair)[1]).second)
        return make_error(en + ": distance " + std::to_string((*pair)[0]) + " appears twice");
      if (placed > UINT64_MAX - (*pair)[1]) return make_error(name + ": counts overflow");
      placed += (*pair)[1];
    }
    for (std::uint64_t c : s.layout_streams) {
      if (placed > UINT64_MAX - c) return make_error(name + ": counts overflow");
      placed += c;
    }
    for (std::uint64_t c : s.layout_bins) {
      if (placed > UINT64_MAX - c) return make_error(name + ": counts overflow");
      placed += c;
    }
    // One distance per first touch of a block, but the first (and the first after a sampling restart).
    if (placed > s.cold)
      return make_error(name + ": " + std::to_string(placed) + " placements, but only " + std::to_string(s.cold) +
                        " first touches");
  }
  return s;
}

Result<SignatureModel> combine(const std::vector<WeightedSignature>& regions) {
  if (regions.empty() || regions.front().signature == nullptr) return make_error("no signature to combine");
  SignatureModel m;
  m.shape = regions.front().signature->shape;
  const std::size_t levels = m.shape.levels();
  m.reuse.assign(m.shape.histogram_bins(), 0);
  const std::size_t row = m.shape.alpha_row();
  std::vector<double> yes(kAlphaBins * row, 0), seen(kAlphaBins * row, 0);
  std::vector<double> left(levels, 0), firsts(levels, 0);
  std::vector<double> lines(m.shape.line_widths() * kAlphaBins * m.shape.line_row(), 0);
  std::vector<double> fill(kAlphaBins * m.shape.fill_row(), 0);
  bool have_fill = !fill.empty();
  std::map<std::uint64_t, double> layout_exact;
  std::vector<double> layout_bins(m.shape.layout_bins(), 0);
  std::vector<double> layout_streams(m.shape.layout_bytes ? kLayoutStreams : 0, 0);
  double total = 0;
  for (std::size_t r = 0; r < regions.size(); ++r) {
    const MemorySignature* s = regions[r].signature;
    if (s == nullptr) return make_error("region " + std::to_string(r) + ": no signature");
    if (!(s->shape == m.shape)) return make_error("region " + std::to_string(r) + ": a different shape");
    if (!(regions[r].weight >= 0) || !std::isfinite(regions[r].weight))
      return make_error("region " + std::to_string(r) + ": weight must be a finite number >= 0");
    if (s->references == 0 || regions[r].weight == 0) continue;
    const double scale = regions[r].weight / static_cast<double>(s->references);
    total += regions[r].weight;
    m.cold += scale * static_cast<double>(s->cold);
    for (std::size_t b = 0; b < m.reuse.size(); ++b) m.reuse[b] += scale * static_cast<double>(s->reuse[b]);
    for (std::size_t i = 0; i < yes.size(); ++i) {
      yes[i] += scale * static_cast<double>(s->alpha_yes[i]);
      seen[i] += scale * static_cast<double>(s->alpha_yes[i] + s->alpha_no[i]);
    }
    for (std::size_t l = 0; l < levels; ++l) {
      left[l] += scale * static_cast<double>(s->first_left[l]);
      firsts[l] += scale * static_cast<double>(s->first_left[l] + s->first_right[l]);
    }
    for (std::size_t k = 0; k < m.kinds.size(); ++k) m.kinds[k] += scale * static_cast<double>(s->kinds[k]);
    for (std::size_t k = 0; k < m.sizes.size(); ++k) m.sizes[k] += scale * static_cast<double>(s->sizes[k]);
    for (std::size_t i = 0; i < lines.size() && i < s->line_reuse.size(); ++i)
      lines[i] += scale * static_cast<double>(s->line_reuse[i]);
    if (s->block_fill.size() != fill.size()) have_fill = false;
    for (std::size_t i = 0; have_fill && i < fill.size(); ++i) fill[i] += scale * static_cast<double>(s->block_fill[i]);
    for (std::size_t b = 0; b < layout_bins.size() && b < s->layout_bins.size(); ++b)
      layout_bins[b] += scale * static_cast<double>(s->layout_bins[b]);
    for (const auto& [d, c] : s->layout_exact) layout_exact[d] += scale * static_cast<double>(c);
    for (std::size_t k = 0; k < layout_streams.size() && k < s->layout_streams.size(); ++k)
      layout_streams[k] += scale * static_cast<double>(s->layout_streams[k]);
  }
  if (total <= 0) return make_error("no region has both a weight and references");
  m.cold /= total;
  for (double& p : m.reuse) p /= total;
  for (double& p : m.kinds) p /= total;
  for (double& p : m.sizes) p /= total;
  // Alpha of a (bin, level, state) never observed: that of the same level and
  // state over all bins, else 1/2.
  m.alpha.assign(yes.size(), 0.5);
  for (std::size_t l = 0; l < row; ++l) {
    double ly = 0, ls = 0;
    for (std::size_t b = 0; b < kAlphaBins; ++b) {
      ly += yes[b * row + l];
      ls += seen[b * row + l];
    }
    const double level_alpha = ls > 0 ? ly / ls : 0.5;
    for (std::size_t b = 0; b < kAlphaBins; ++b) {
      const std::size_t i = b * row + l;
      m.alpha[i] = seen[i] > 0 ? yes[i] / seen[i] : level_alpha;
    }
  }
  m.first_left.resize(levels);
  for (std::size_t l = 0; l < levels; ++l) m.first_left[l] = firsts[l] > 0 ? left[l] / firsts[l] : 0.5;
  // Line distances: a distribution per alpha bin (all zero when never observed).
  const std::size_t cols = m.shape.line_row();
  for (std::size_t b = 0; b < m.shape.line_widths() * kAlphaBins && cols; ++b) {
    double sum = 0;
    for (std::size_t c = 0; c < cols; ++c) sum += lines[b * cols + c];
    if (sum > 0)
      for (std::size_t c = 0; c < cols; ++c) lines[b * cols + c] /= sum;
  }
  m.line_reuse = std::move(lines);
  const std::size_t fill_cols = m.shape.fill_row();
  for (std::size_t b = 0; have_fill && b < kAlphaBins; ++b) {
    double sum = 0;
    for (std::size_t c = 0; c < fill_cols; ++c) sum += fill[b * fill_cols + c];
    if (sum > 0)
      for (std::size_t c = 0; c < fill_cols; ++c) fill[b * fill_cols + c] /= sum;
  }
  if (have_fill) m.block_fill = std::move(fill);
  double placed = 0;
  for (const auto& [d, w] : layout_exact) placed += w;
  for (double w : layout_bins) placed += w;
  for (double w : layout_streams) placed += w;
  if (placed > 0) {
    for (const auto& [d, w] : layout_exact) m.layout_exact.emplace_back(d, w / placed);
    for (double& w : layout_bins) w /= placed;
    for (double& w : layout_streams) w /= placed;
    m.layout_bins = std::move(layout_bins);
    m.layout_streams = std::move(layout_streams);
  }
  return m;
}

}  // namespace hmtt::chameleon
