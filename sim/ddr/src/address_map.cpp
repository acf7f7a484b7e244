#include "hmtt/sim/address_map.h"

#include <charconv>

namespace hmtt::sim {

namespace {

struct FieldName {
  const char* name;
  AddressMap::Field field;
};
constexpr FieldName kNames[] = {{"row", AddressMap::Field::Row},       {"col", AddressMap::Field::Col},
                                {"colLow", AddressMap::Field::ColLow}, {"bank", AddressMap::Field::Bank},
                                {"rank", AddressMap::Field::Rank},     {"channel", AddressMap::Field::Channel},
                                {"bus", AddressMap::Field::Bus}};

const char* name_of(AddressMap::Field f) {
  for (const auto& n : kNames)
    if (n.field == f) return n.name;
  return "?";
}

}  // namespace

Result<AddressMap> AddressMap::parse(const std::string& text) {
  AddressMap m;
  std::vector<std::pair<Field, unsigned>> fields;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos) return make_error("address map '" + text + "': field '" + item + "' needs name:width");
    const std::string name = item.substr(0, colon);
    unsigned width = 0;
    const char* b = item.data() + colon + 1;
    const char* e = item.data() + item.size();
    auto r = std::from_chars(b, e, width);
    if (r.ec != std::errc() || r.ptr != e || width == 0 || width > 32)
      return make_error("address map '" + text + "': field '" + item + "' has a bad width");
    bool known = false;
    for (const auto& n : kNames)
      if (name == n.name) {
        for (const auto& f : fields)
          if (f.first == n.field) return make_error("address map '" + text + "': field '" + name + "' appears twice");
        fields.emplace_back(n.field, width);
        known = true;
      }
    if (!known) return make_error("address map '" + text + "': unknown field '" + name + "'");
    pos = end + 1;
  }
  unsigned shift = 0;
  for (auto it = fields.rbegin(); it != fields.rend(); ++it) {
    m.slices_.insert(m.slices_.begin(), Slice{it->first, it->second, shift});
    shift += it->second;
  }
  m.total_bits_ = shift;
  if (m.total_bits_ > 48) return make_error("address map '" + text + "': more than 48 address bits");
  for (Field f : {Field::Row, Field::Col, Field::Bank, Field::Bus})
    if (m.width(f) == 0) return make_error("address map '" + text + "': missing field '" + name_of(f) + "'");
  if (m.width(Field::Col) + m.width(Field::ColLow) > 10)
    return make_error("address map '" + text + "': more than 10 column bits (A0-A9; A10 is auto-precharge)");
  if (m.width(Field::Row) > 16) return make_error("address map '" + text + "': more than 16 row bits");
  if (m.width(Field::Bank) > 3) return make_error("address map '" + text + "': more than 3 bank bits");
  if (m.width(Field::Rank) > 3) return make_error("address map '" + text + "': more than 3 rank bits");
  return m;
}

Result<AddressMap> AddressMap::builtin(const std::string& name) {
  // 2 ranks x 8 banks x 16K rows x 1K columns x 8-byte bus = 2 GiB per channel.
  if (name == "open-page") return parse("row:14,rank:1,bank:3,col:10,bus:3");
  if (name == "interleaved") return parse("row:14,col:7,rank:1,bank:3,colLow:3,bus:3");
  return make_error("unknown address map '" + name + "' (built in: open-page, interleaved)");
}

unsigned AddressMap::width(Field f) const {
  for (const auto& s : slices_)
    if (s.field == f) return s.width;
  return 0;
}

DramCoordinates AddressMap::decompose(std::uint64_t address) const {
  DramCoordinates c;
  const unsigned low_w = width(Field::ColLow);
  for (const auto& s : slices_) {
    const auto v = static_cast<std::uint32_t>((address >> s.shift) & ((std::uint64_t{1} << s.width) - 1));
    switch (s.field) {
      case Field::Row: c.row = v; break;
      case Field::Col: c.column |= v << low_w; break;
      case Field::ColLow: c.column |= v; break;
      case Field::Bank: c.bank = v; break;
      case Field::Rank: c.rank = v; break;
      case Field::Channel: c.channel = v; break;
      case Field::Bus: c.offset = v; break;
    }
  }
  return c;
}

std::uint64_t AddressMap::compose(const DramCoordinates& c) const {
  const unsigned low_w = width(Field::ColLow);
  std::uint64_t a = 0;
  for (const auto& s : slices_) {
    std::uint64_t v = 0;
    switch (s.field) {
      case Field::Row: v = c.row; break;
      case Field::Col: v = c.column >> low_w; break;
      case Field::ColLow: v = c.column; break;
      case Field::Bank: v = c.bank; break;
      case Field::Rank: v = c.rank; break;
      case Field::Channel: v = c.channel; break;
      case Field::Bus: v = c.offset; break;
    }
    a |= (v & ((std::uint64_t{1} << s.width) - 1)) << s.shift;
  }
  return a;
}

std::string AddressMap::text() const {
  std::string t;
  for (const auto& s : slices_) {
    if (!t.empty()) t += ',';
    t += name_of(s.field);
    t += ':';
    t += std::to_string(s.width);
  }
  return t;
}

}  // namespace hmtt::sim
