// The binary profile (docs/psnap.md, "The binary profile"): lossless round
// trip, the documented worked example byte for byte, smaller than the JSON
// export, and every corrupt or cut-short input rejected with an error naming
// the byte offset (and, inside the body, the field).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <zlib.h>

#include "hmtt/psnap/psnap.h"
#include "streams.h"

using namespace hmtt;

namespace {

psnap::StreamProfile profile_of(const std::vector<Reference>& t, psnap::PsnapKnobs knobs = {}) {
  psnap::StreamProfiler profiler(knobs);
  for (const auto& r : t) profiler.access(r);
  return profiler.finish();
}

psnap::StreamProfile mixed_profile() {
  psnap::PsnapKnobs k;
  k.window = 3000;  // several loops, instances and merged regions in 48 K references
  k.loop_similarity = 0.75;
  k.loop_signature = psnap::LoopSignature::Pages;  // one code region: pages tell the phases apart
  auto t = psnap_test::mixed(8);
  const auto table = psnap_test::column_walk(24);  // then a table read down its columns: a sweep
  t.insert(t.end(), table.begin(), table.end());
  for (std::size_t i = 0; i < t.size(); ++i) t[i].time = i;
  return profile_of(t, k);
}

// A stored (uncompressed) file around `body`, with a correct CRC: lets a test
// reach the body decoder with a body it edited.
std::string stored_file(const std::string& body) {
  std::string f = "HMTTPSNP";
  f += std::string{'\x09', '\x00', '\x00', '\x00'};
  auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) f += static_cast<char>(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  u32(static_cast<std::uint32_t>(body.size()));
  u32(static_cast<std::uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
  return f + body;
}

std::string error_of(std::string_view data) {
  auto p = psnap::from_binary(data);
  return p.ok() ? "" : p.error().message;
}

// `p` written in both codecs and both layouts (as the current version) and read back equal, and
// through the JSON export and back to the same JSON; returns the profile read from the JSON.
psnap::StreamProfile round_trips(const psnap::StreamProfile& p) {
  for (auto c : {psnap::BinaryCompression::Stored, psnap::BinaryCompression::Lzma})
    for (auto layout : {psnap::BodyLayout::Interleaved, psnap::BodyLayout::Columns}) {
      const std::string bytes = psnap::to_binary(p, c, layout);
      CHECK(bytes[8] == 9);  // the version written
      auto back = psnap::from_binary(bytes);
      REQUIRE(back.ok());
      CHECK(*back == p);
    }
  auto via_json = psnap::from_json(psnap::to_json(p));
  REQUIRE(via_json.ok());
  CHECK(psnap::to_json(*via_json) == psnap::to_json(p));  // (format_test: JSON -> profile -> JSON is the identity)
  return *via_json;
}

// The first region with a sweep, and its path ("[l].regions[r]").
psnap::RegionProfile* sweep_region(psnap::StreamProfile& q) {
  for (auto& l : q.loops)
    for (auto& r : l.regions)
      if (!r.sweeps.empty()) return &r;
  FAIL("no region with a sweep");
  return nullptr;
}
std::string sweep_path(const psnap::StreamProfile& q) {
  for (std::size_t l = 0; l < q.loops.size(); ++l)
    for (std::size_t r = 0; r < q.loops[l].regions.size(); ++r)
      if (!q.loops[l].regions[r].sweeps.empty()) return "[" + std::to_string(l) + "].regions[" + std::to_string(r) + "]";
  return "?";
}

std::vector<Reference> replay(const psnap::StreamProfile& p, std::uint64_t n) {
  auto src = psnap::make_replay(p, n, 5);
  auto all = collect(*src);
  REQUIRE(all.ok());
  return *all;
}

}  // namespace

TEST_CASE("psnap binary profile: decode(encode(p)) == p, stored, deflated and LZMA2, and the same replay") {
  const auto p = mixed_profile();
  REQUIRE(p.loops.size() >= 2);
  bool merged = false, code = false, negative = false, moves = false, sweep = false;
  for (const auto& l : p.loops)
    for (const auto& r : l.regions) {
      merged |= r.merged > 0;
      sweep |= !r.sweeps.empty();
      code |= r.code;
      moves |= r.moves > 0;
      for (int b = 10; b < psnap::kRandomBin; ++b) negative |= r.strides[static_cast<std::size_t>(b)] > 0;
    }
  CHECK(merged);  // the example exercises every optional field
  CHECK(code);
  CHECK(negative);
  CHECK(moves);
  CHECK(sweep);
  std::size_t sizes[3][2] = {};  // [compression][layout]
  for (auto c : {psnap::BinaryCompression::Stored, psnap::BinaryCompression::Deflate, psnap::BinaryCompression::Lzma})
    for (auto layout : {psnap::BodyLayout::Interleaved, psnap::BodyLayout::Columns}) {
      const std::string bytes = psnap::to_binary(p, c, layout);
      sizes[static_cast<int>(c)][static_cast<int>(layout)] = bytes.size();
      CHECK(bytes[9] == static_cast<int>(c));  // the compression byte: 0 stored, 1 deflate, 2 LZMA2
      CHECK(bytes[10] == static_cast<int>(layout));  // the layout byte: 0 interleaved, 1 columns
      CHECK(psnap::is_binary_profile(bytes));
      auto back = psnap::from_binary(bytes);
      REQUIRE(back.ok());
      CHECK(*back == p);
      CHECK(psnap::to_binary(*back, c, layout) == bytes);
    }
  INFO("stored " << sizes[0][0] << " B, deflate " << sizes[1][0] << " B, LZMA2 " << sizes[2][0] << " B, LZMA2 in columns "
                 << sizes[2][1] << " B");
  CHECK(sizes[1][0] < sizes[0][0]);
  CHECK(sizes[2][0] < sizes[1][0]);  // LZMA2 is the default because it is smaller (docs/accuracy.md: 14-17 %)
  // (columns compress smaller on real profiles, accuracy_test's gzip: not on one this small and regular)
  CHECK(sizes[0][1] > sizes[0][0]);  // (the columns' directory: a few bytes more when stored)
  CHECK(psnap::to_binary(p) == psnap::to_binary(p, psnap::BinaryCompression::Lzma, psnap::BodyLayout::Columns));
  // The column-arranged body holds the interleaved one's bytes, regrouped, after its directory.
  const std::string flat = psnap::encode_body(p), columns = psnap::encode_body(p, psnap::BodyLayout::Columns);
  CHECK(columns.size() > flat.size());
  CHECK(columns.size() < flat.size() + 2 + 21 * 3);
  std::string a = flat, b = columns.substr(columns.size() - flat.size());
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK(a == b);
  auto from_columns = psnap::decode_body(columns, 9, psnap::BodyLayout::Columns);
  REQUIRE(from_columns.ok());
  CHECK(*from_columns == p);
  auto body = psnap::decode_body(psnap::encode_body(p));
  REQUIRE(body.ok());
  CHECK(*body == p);
  // The JSON export replays to the same stream as the binary profile.
  auto via_json = psnap::from_json(psnap::to_json(p));
  REQUIRE(via_json.ok());
  CHECK(replay(*via_json, 20000) == replay(*psnap::from_binary(psnap::to_binary(p)), 20000));
}

TEST_CASE("psnap binary profile: the profiler writes it by default; json on request; both synthesise") {
  auto method = analysis::make_psnap_profiler();
  const auto t = psnap_test::mixed(4);
  std::string files[2];
  for (int json = 0; json < 2; ++json) {
    VectorSource src(t);
    auto params = analysis::ProfileParams::parse(json ? std::vector<std::string>{"encoding=json"}
                                                      : std::vector<std::string>{},
                                                 method->params());
    REQUIRE(params.ok());
    auto out = method->profile(src, *params, analysis::RunOptions{.progress = false});
    REQUIRE(out.ok());
    CHECK(out->format == (json ? "json" : "binary"));
    CHECK(out->summary["profile_bytes"] == out->data.size());
    CHECK(method->recognizes(out->data));
    files[json] = out->data;
  }
  CHECK(psnap::is_binary_profile(files[0]));
  CHECK_FALSE(analysis::make_irm_profiler()->recognizes(files[0]));
  // The compact file is far smaller than the JSON one (measured: about 1/8 here).
  INFO("binary " << files[0].size() << " B, json " << files[1].size() << " B");
  CHECK(files[0].size() * 4 < files[1].size());
  auto a = method->synthesize(files[0], {.length = 5000, .seed = 3});
  auto b = method->synthesize(files[1], {.length = 5000, .seed = 3});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto ra = collect(**a);
  auto rb = collect(**b);
  REQUIRE(ra.ok());
  REQUIRE(rb.ok());
  CHECK(*ra == *rb);
  // LZMA2 by default; deflate (the default before) and stored on request, all read back alike.
  CHECK(files[0][9] == 2);
  for (const char* e : {"binary-deflate", "binary-stored"}) {
    INFO(std::string(e));
    VectorSource again(t);
    auto params = analysis::ProfileParams::parse({std::string("encoding=") + e}, method->params());
    REQUIRE(params.ok());
    auto out = method->profile(again, *params, analysis::RunOptions{.progress = false});
    REQUIRE(out.ok());
    CHECK(out->data[9] == (std::string(e) == "binary-deflate" ? 1 : 0));
    CHECK(out->data.size() > files[0].size());
    auto c = method->synthesize(out->data, {.length = 5000, .seed = 3});
    REQUIRE(c.ok());
    auto rc = collect(**c);
    REQUIRE(rc.ok());
    CHECK(*rc == *ra);
  }
  VectorSource src(t);
  auto bad = analysis::ProfileParams::parse({"encoding=xml"}, method->params());
  REQUIRE(bad.ok());
  auto out = method->profile(src, *bad, analysis::RunOptions{.progress = false});
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().message.find("encoding") != std::string::npos);
}

TEST_CASE("psnap binary profile: the worked example of docs/psnap.md, byte for byte") {
  // One loop of one region: 8-byte reads sweeping 0x1000..0x1038 twice.
  std::vector<Reference> t;
  for (int rep = 0; rep < 2; ++rep)
    for (std::uint64_t i = 0; i < 8; ++i) t.push_back(psnap_test::ref(0x1000 + 8 * i));
  for (std::size_t i = 0; i < t.size(); ++i) t[i].time = i;
  psnap::PsnapKnobs k;
  k.merge_below = 0;
  const auto p = profile_of(t, k);
  const std::string body = psnap::encode_body(p);
  static const char kExpected[] =
      "\x10"                                // references 16
      "\x80\x80\x04"                        // window 65536
      "\x80\x02"                            // region_distance 256
      "\x80\x80\x04"                        // pattern_buffer 65536
      "\x00"                                // merge_below 0
      "\x00\x00\x00\x00\x00\x00\xe0\x3f"    // loop_similarity 0.5
      "\x01"                                // loop_signature: code
      "\x80\x08"                            // lattice_stride 1024
      "\x01"                                // returns: loop
      "\x01"                                // 1 loop
      "\x01\x10\x00\x01"                    // 1 instance, 16 references, no code region, 1 region
      "\x00"                                // flags: data, not merged, no moves
      "\x80\x40"                            // base 0x1000 (zigzag delta from 0)
      "\x38\x00"                            // last = base + 56, first = base
      "\x10\x01\x01"                        // 16 accesses in 1 run, working set 1 line
      "\x00\x00"                            // touched in instance 0 only (first 0, last - first 0)
      "\x01\x10"                            // kinds: read 16
      "\x01\x08\x10"                        // 1 size: 8 bytes x 16
      "\x90\x80\x02"                        // stride bins +8 and -32 (mask 0x8010)
      "\x0e\x00"                            // +8: 14 times, exact stride 8
      "\x01\x18"                            // -32: once, exact stride -56 (32 + 24)
      "\x00"                                // jump_reuse: none
      "\x90\x80\x02"                        // stride_order rows +8 and -32
      "\x90\x80\x02\x0c\x01"                // +8 -> +8 12, +8 -> -32 1
      "\x10\x01"                            // -32 -> +8 1
      "\x01\x01\x0e"                        // pattern: 1 entry, region 0 x 2 + 1 (a run), 16 = 14 + 2
      "\x01\x00\x01";                       // order: loop 0 for 1 window
  const std::string expected(kExpected, sizeof kExpected - 1);
  CHECK(body == expected);
  auto back = psnap::decode_body(expected);
  REQUIRE(back.ok());
  CHECK(*back == p);
  // A loop from a code region (I-Code event 7) says so: its id + 1.
  auto event_loop = p;
  event_loop.loops[0].code_region = 7;
  std::string with_region = expected;
  with_region[with_region.find("\x01\x10\x00\x01\x00")+ 2] = '\x08';
  CHECK(psnap::encode_body(event_loop) == with_region);
  auto back_region = psnap::decode_body(with_region);
  REQUIRE(back_region.ok());
  CHECK(*back_region == event_loop);
  // Two loops of one code region are refused at the second.
  auto twice = event_loop;
  twice.loops.push_back(twice.loops[0]);
  twice.order.emplace_back(1, 1);
  twice.references = 32;
  auto refused_twice = psnap::decode_body(psnap::encode_body(twice));
  REQUIRE_FALSE(refused_twice.ok());
  CHECK(refused_twice.error().message.find(".loops[1].code_region): 7 is also loops[0]'s") != std::string::npos);
  // The same body in version 4, which had no code regions: every loop is the segmentation's.
  std::string v4 = expected;
  v4.erase(v4.find("\x01\x10\x00\x01\x00") + 2, 1);
  auto v4_back = psnap::decode_body(v4, 4);
  REQUIRE(v4_back.ok());
  CHECK(*v4_back == p);
  CHECK_FALSE(psnap::decode_body(v4, 5).ok());  // read as version 5 its regions count is the code region
  // Version 2, which had no return scope either: its returns were counted within a window.
  std::string v2 = v4;
  v2.erase(v2.find("\x80\x08\x01\x01\x01\x10") + 2, 1);
  auto older = psnap::decode_body(v2, 2);
  REQUIRE(older.ok());
  CHECK(older->knobs.returns == psnap::ReturnScope::Window);
  CHECK(older->knobs.lattice_stride == 1024);
  auto as_v3 = *older;
  as_v3.knobs.returns = p.knobs.returns;
  CHECK(as_v3 == p);
  CHECK_FALSE(psnap::decode_body(v2, 3).ok());  // read as version 3 it is cut short
  // And in version 1, which had no lattice_stride either: it reads as 0 (made before it).
  std::string v1 = v2;
  v1.erase(v1.find("\x80\x08\x01\x01\x10"), 2);
  auto old = psnap::decode_body(v1, 1);
  REQUIRE(old.ok());
  CHECK(old->knobs.lattice_stride == 0);
  CHECK(old->knobs.returns == psnap::ReturnScope::Window);
  auto as_v2 = *old;
  as_v2.knobs.lattice_stride = p.knobs.lattice_stride;
  CHECK(as_v2 == *older);
  CHECK_FALSE(psnap::decode_body(v1, 2).ok());  // read as version 2 it is cut short
  for (const auto& [body_of, version] : {std::pair{&v1, '\x01'}, std::pair{&v2, '\x02'}}) {
    std::string file = stored_file(*body_of);
    file[8] = version;
    auto from_file = psnap::from_binary(file);
    REQUIRE(from_file.ok());
    CHECK(*from_file == (version == '\x01' ? *old : *older));
  }
  // A code region id past 32 bits (id + 1 > 2^32 - 1) is refused, naming the field.
  std::string wide = expected;
  wide.replace(wide.find("\x01\x10\x00\x01\x00") + 2, 1, std::string("\x80\x80\x80\x80\x10", 5));  // 2^32
  auto too_wide = psnap::decode_body(wide);
  REQUIRE_FALSE(too_wide.ok());
  CHECK(too_wide.error().message.find(".loops[0].code_region): 4294967295 is above 4294967294") != std::string::npos);
  // A return scope other than 0 (window) and 1 (loop) is refused, naming the field.
  std::string bad = expected;
  bad[bad.find("\x80\x08\x01\x01\x01\x10") + 2] = '\x02';
  auto refused = psnap::decode_body(bad);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find(".returns") != std::string::npos);
}

TEST_CASE("psnap binary profile: header errors name the byte") {
  using psnap::BinaryCompression;
  using psnap::BodyLayout;
  // The files written before stop 26 (deflate, interleaved), the default since (LZMA2, columns),
  // and stored columns.
  for (auto [c, layout] : {std::pair{BinaryCompression::Deflate, BodyLayout::Interleaved},
                           std::pair{BinaryCompression::Lzma, BodyLayout::Columns},
                           std::pair{BinaryCompression::Stored, BodyLayout::Columns}}) {
    const bool lzma = c == BinaryCompression::Lzma, stored = c == BinaryCompression::Stored;
    INFO("codec " << static_cast<int>(c) << ", layout " << static_cast<int>(layout));
    const std::string good = psnap::to_binary(mixed_profile(), c, layout);
    REQUIRE(error_of(good).empty());
    CHECK(good[10] == (layout == BodyLayout::Columns ? 1 : 0));
    auto edited = [&](std::size_t at, char v) {
      std::string s = good;
      s[at] = v;
      return error_of(s);
    };
    CHECK(error_of("HMTTPS").find("byte 6: the 20-byte header is cut short") != std::string::npos);
    CHECK(edited(0, 'X').find("byte 0: not a binary PSnAP profile") != std::string::npos);
    CHECK(edited(8, 10).find("byte 8: version 10 (this reader knows 1 to 9)") != std::string::npos);
    CHECK(edited(8, 0).find("byte 8: version 0") != std::string::npos);
    CHECK(edited(9, 7).find("byte 9: unknown compression 7 (0 stored, 1 deflate, 2 LZMA2)") != std::string::npos);
    if (!stored)
      CHECK(edited(9, lzma ? 1 : 2).find("byte 20: the compressed body is corrupt") != std::string::npos);  // the other codec
    CHECK(edited(10, 2).find("byte 10: unknown body layout 2 (0 interleaved, 1 columns)") != std::string::npos);
    CHECK(edited(10, layout == BodyLayout::Columns ? 0 : 1).rfind("profile: body byte ", 0) == 0);  // the other layout
    CHECK(edited(11, 1).find("byte 11: reserved") != std::string::npos);
    CHECK(edited(12, static_cast<char>(good[12] + 1)).find("byte 12: body length") != std::string::npos);
    if (!stored)
      CHECK(edited(12, static_cast<char>(good[12] - 1)).find("byte 20: the compressed body is corrupt (" + std::string(lzma ? "LZMA2" : "zlib") + ": longer than the header's body length") != std::string::npos);
    CHECK(edited(15, '\x7f').find("byte 12: body length") != std::string::npos);  // 2 GB from a few KB
    CHECK(edited(16, static_cast<char>(good[16] ^ 1)).find("byte 16: body CRC-32 mismatch") != std::string::npos);
    CHECK(error_of(good + "x").find(stored ? "byte 12: body length" : "byte " + std::to_string(good.size()) + ": 1 bytes after the compressed body") !=
          std::string::npos);
    // Any single corrupt byte is an error (the CRC covers what the codec does not), and every
    // cut is an error naming a byte; never a crash. The one exception: bits the codec ignores
    // (deflate's padding after the last block, a code length of a symbol the block never uses)
    // read back the same profile.
    const auto original = mixed_profile();
    int ignored = 0;
    for (std::size_t at = 0; at < good.size(); at += 7) {
      INFO("byte " << at << " of " << good.size());
      std::string s = good;
      s[at] = static_cast<char>(good[at] ^ 0x20);
      const auto back = psnap::from_binary(s);
      if (back.ok()) {
        CHECK(c == BinaryCompression::Deflate);
        CHECK(*back == original);
        ++ignored;
      } else {
        CHECK(back.error().message.rfind("profile: byte ", 0) == 0);
      }
    }
    CHECK(ignored <= 2);
    for (std::size_t cut = 0; cut < good.size(); cut += 11) {
      INFO("cut at " << cut);
      CHECK(error_of(good.substr(0, cut)).rfind("profile: byte ", 0) == 0);
    }
  }
}

TEST_CASE("psnap binary profile: a column-arranged body's errors name the byte and the column") {
  const auto p = mixed_profile();
  const std::string body = psnap::encode_body(p, psnap::BodyLayout::Columns);
  // The directory: the column count, then each column's length (varints).
  std::size_t at = 0;
  auto varint = [&] {
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const auto b = static_cast<std::uint8_t>(body[at++]);
      v |= std::uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
  };
  const std::uint64_t n = varint();
  REQUIRE(n == 21);
  std::vector<std::string> cols;
  std::vector<std::uint64_t> lengths;
  for (std::uint64_t c = 0; c < n; ++c) lengths.push_back(varint());
  for (const auto len : lengths) {
    cols.push_back(body.substr(at, len));
    at += len;
  }
  REQUIRE(at == body.size());
  auto rebuild = [&](const std::vector<std::string>& columns, std::size_t count) {
    std::string out;
    auto put = [&](std::uint64_t v) {
      for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7f) | 0x80);
      out += static_cast<char>(v);
    };
    put(count);
    for (const auto& c : columns) put(c.size());
    for (const auto& c : columns) out += c;
    return out;
  };
  REQUIRE(rebuild(cols, 21) == body);
  auto error = [](const std::string& b) {
    auto r = psnap::decode_body(b, 9, psnap::BodyLayout::Columns);
    return r.ok() ? std::string() : r.error().message;
  };
  CHECK(error(body).empty());
  CHECK(error(rebuild(cols, 20)) == "profile: body byte 0 (.columns): 20 columns, expected 21");
  CHECK(error(body + "x") == "profile: body byte " + std::to_string(body.size()) + " (.columns): 1 bytes after the last column");
  CHECK(error(body.substr(0, body.size() - 1)).find("(.columns.pattern): column of " + std::to_string(cols[20].size()) +
                                                    " bytes, past the end of the body") != std::string::npos);
  // A byte the profile does not read, at the end of the meta column (the stream's knobs, loops, order).
  auto extra = cols;
  extra[0] += '\x05';
  const std::string with_extra = rebuild(extra, 21);
  std::size_t columns_bytes = 1;  // the columns, the extra byte included
  for (const auto len : lengths) columns_bytes += len;
  const std::size_t meta_end = (with_extra.size() - columns_bytes) + lengths[0];  // directory, then the meta column
  CHECK(error(with_extra) == "profile: body byte " + std::to_string(meta_end) + " (.columns.meta): 1 bytes left in the column");
  // The flags column one byte short (the byte moved to the next column): the last region's flags
  // are missing, and the error names that field.
  auto shifted = cols;
  shifted[2].insert(shifted[2].begin(), shifted[1].back());
  shifted[1].pop_back();
  const auto& last_loop = p.loops.back();
  CHECK(error(rebuild(shifted, 21)).find(".loops[" + std::to_string(p.loops.size() - 1) + "].regions[" +
                                         std::to_string(last_loop.regions.size() - 1) +
                                         "].flags): the column ends inside this field") != std::string::npos);
  // Read as interleaved, the column-arranged body is an error too (and the other way round).
  CHECK_FALSE(psnap::decode_body(body).ok());
  CHECK_FALSE(psnap::decode_body(psnap::encode_body(p), 9, psnap::BodyLayout::Columns).ok());
}

TEST_CASE("psnap binary profile: body errors name the byte and the field") {
  const auto p = mixed_profile();
  const std::string body = psnap::encode_body(p);
  REQUIRE(error_of(stored_file(body)).empty());
  // The offset of the first byte where two encodings differ (the edited field).
  auto first_difference = [&](const psnap::StreamProfile& q) {
    const std::string b = psnap::encode_body(q);
    std::size_t i = 0;
    while (i < b.size() && i < body.size() && b[i] == body[i]) ++i;
    return i;
  };
  struct Case {
    const char* field;
    const char* reason;
    void (*edit)(psnap::StreamProfile&);
  };
  const Case cases[] = {
      {".window", "must be at least 1", [](psnap::StreamProfile& q) { q.knobs.window = 0; }},
      {".loop_similarity", "not within 0..1", [](psnap::StreamProfile& q) { q.knobs.loop_similarity = 1.5; }},
      {".loop_signature", "must be 0 (pages) or 1 (code)",
       [](psnap::StreamProfile& q) { q.knobs.loop_signature = static_cast<psnap::LoopSignature>(2); }},
      {".loops[1].references", "must be at least 1", [](psnap::StreamProfile& q) { q.loops[1].references = 0; }},
      {".loops[0].regions[1].runs", "more runs than accesses",
       [](psnap::StreamProfile& q) { q.loops[0].regions[1].runs = q.loops[0].regions[1].count + 1; }},
      {".loops[0].regions[0].sizes[0][0]", "access size above 4096",
       [](psnap::StreamProfile& q) { q.loops[0].regions[0].sizes[0].first = 5000; }},
      {".loops[0].regions[0].jump_reuse[0]", "more returns than random strides",
       [](psnap::StreamProfile& q) { q.loops[0].regions[0].jump_reuse[0] = q.loops[0].regions[0].strides[psnap::kRandomBin] + 1; }},
      {".loops[L].regions[R].sweeps[0][0]", "not 1 .. the random strides' count",
       [](psnap::StreamProfile& q) {
         auto& r = *sweep_region(q);
         r.sweeps[0].count = r.strides[psnap::kRandomBin] + 1;
       }},
      {".loops[L].regions[R].sweeps[0][1]", "not a random stride (|stride| > 256)",
       [](psnap::StreamProfile& q) { sweep_region(q)->sweeps[0].stride = 256; }},
      {".loops[L].regions[R].sweeps", "flagged, so 1 .. 2 sweeps",
       [](psnap::StreamProfile& q) {
         auto& r = *sweep_region(q);
         r.sweeps.assign(3, psnap::Sweep{4096, 1, 1, 0});
       }},
      {".loops[L].regions[R].sweeps[0][2]", "repeats leave no run",
       [](psnap::StreamProfile& q) { sweep_region(q)->sweeps[0].runs = 0; }},
      {".loops[L].regions[R].sweeps[0][4]", "more alternations than the runs",
       [](psnap::StreamProfile& q) {
         auto& w = sweep_region(q)->sweeps[0];
         w.alternations = w.runs + 1;
       }},
      {".loops[L].regions[R].sweeps[0][3]", "more long runs than the runs",
       [](psnap::StreamProfile& q) {
         auto& w = sweep_region(q)->sweeps[0];
         w.long_runs = w.runs + 1;
       }},
      {".loops[L].regions[R].jump_reuse[0]", "more returns than random strides",
       [](psnap::StreamProfile& q) {
         auto& r = *sweep_region(q);
         r.jump_reuse = {};
         r.jump_reuse[0] = r.strides[psnap::kRandomBin] - r.swept() + 1;  // the sweep's strides are not returns
       }},
      {".loops[0].pattern[0]", "region 9999 does not exist",
       [](psnap::StreamProfile& q) { q.loops[0].pattern[0].first = 9999; }},
      {".order[0][0]", "loop 77 does not exist", [](psnap::StreamProfile& q) { q.order[0].first = 77; }},
      {".order[0][1]", "must be at least 1", [](psnap::StreamProfile& q) { q.order[0].second = 0; }},
  };
  for (const auto& c : cases) {
    psnap::StreamProfile q = p;
    c.edit(q);
    const std::string got = error_of(stored_file(psnap::encode_body(q)));
    INFO(got);
    const std::string head = "profile: body byte ";
    REQUIRE(got.rfind(head, 0) == 0);
    std::string field = c.field;
    if (const auto at = field.find("[L].regions[R]"); at != std::string::npos) field.replace(at, 14, sweep_path(p));
    CHECK(got.find(" (" + field + "): " + c.reason) != std::string::npos);
    // The named byte is where the field starts: the first changed byte d lies
    // in it (a varint starts at d, an 8-byte double up to 7 bytes before), or
    // it follows a count that changed with it (jump_reuse's length).
    const std::size_t named = std::stoull(got.substr(head.size()));
    const std::size_t d = first_difference(q);
    CHECK(named + 7 >= d);
    CHECK(named <= d + 1);
  }
  // A second sweep of the first's stride (the count of sweeps changes too, so no byte check).
  {
    psnap::StreamProfile q = p;
    auto& r = *sweep_region(q);
    r.sweeps.resize(1);
    r.sweeps[0] = {r.sweeps[0].stride, 1, 1, 0};
    r.sweeps.push_back(r.sweeps[0]);
    CHECK(error_of(stored_file(psnap::encode_body(q))).find(" (.loops" + sweep_path(p) + ".sweeps[1][1]): the stride of an earlier sweep") !=
          std::string::npos);
  }
  // Edited bytes the encoder never writes.
  auto at = [&](std::size_t i, char v) {
    std::string b = body;
    b[i] = v;
    return error_of(stored_file(b));
  };
  psnap::StreamProfile nan = p;
  nan.knobs.loop_similarity = 0.0;
  const std::size_t similarity_end = first_difference(nan) + 1;  // 0.75 and 0.0 differ in the top two bytes only
  CHECK(at(similarity_end, '\x7f').find("(.loop_similarity): not within 0..1") != std::string::npos);  // 0x7fe8...: 2^1023 x 1.5
  CHECK(error_of(stored_file(body + '\0')).find("(end): 1 bytes after the profile") != std::string::npos);
  CHECK(error_of(stored_file(std::string(11, '\xff'))).find("body byte 0 (.references): varint overflows") != std::string::npos);
  // Every cut of the body ends inside a field, named with its offset.
  for (std::size_t cut = 0; cut < body.size(); cut += 5) {
    const std::string e = error_of(stored_file(body.substr(0, cut)));
    INFO("cut at " << cut << ": " << e);
    CHECK(e.rfind("profile: body byte ", 0) == 0);
  }
}

TEST_CASE("psnap binary profile: a version 3 sweep reads as strides each a run of their own") {
  // Version 4 added the sweeps' count and, per sweep, its repeats, long runs and alternations.
  auto p = profile_of(psnap_test::column_walk(24));
  REQUIRE(p.loops.size() == 1);
  REQUIRE(p.loops[0].regions.size() == 1);
  auto& r = p.loops[0].regions[0];
  REQUIRE(r.sweeps.size() == 1);
  CHECK(r.sweeps[0] == psnap::Sweep{1024, 24 * 255, 24, 24});
  r.sweeps[0].runs = r.sweeps[0].count;  // what version 3 can say
  r.sweeps[0].long_runs = 0;
  const std::string v5 = psnap::encode_body(p);
  // Version 5's loop header (instances 1, references 6,144, no code region, 1 region) lost its code region in 4.
  const std::string loop5("\x01\x80\x30\x00\x01", 5);
  REQUIRE(p.loops[0].references == 6144);
  REQUIRE(v5.find(loop5) != std::string::npos);
  std::string v4 = v5;
  v4.erase(v4.find(loop5) + 3, 1);
  const std::string sweep4("\x01\xe8\x2f\x80\x10\x00\x00\x00", 8);  // 1 sweep: 6120 strides of +1024, 0 repeats, long runs, alternations
  const auto at = v4.find(sweep4);
  REQUIRE(at != std::string::npos);
  std::string v3 = v4;
  v3.replace(at, sweep4.size(), std::string("\xe8\x2f\x80\x10", 4));
  auto back = psnap::decode_body(v3, 3);
  REQUIRE(back.ok());
  CHECK(*back == p);
  CHECK_FALSE(psnap::decode_body(v3, 4).ok());
}

TEST_CASE("psnap binary profile: a region's growth curve round-trips (version 6), and a bad one is named") {
  auto p = mixed_profile();
  auto& r = p.loops[0].regions[1];
  r.growth = {100, 900, 4000, 4000, 20000, 41000, 60000, 65536};
  CHECK(round_trips(p).loops[0].regions[1].growth == r.growth);
  // A curve of other than 8 points is not a curve: both writers leave it out alike.
  auto short_curve = p;
  short_curve.loops[0].regions[1].growth.pop_back();
  CHECK_FALSE(psnap::to_json(short_curve)["loops"][0]["regions"][1].contains("growth"));
  auto short_back = psnap::from_binary(psnap::to_binary(short_curve));
  REQUIRE(short_back.ok());
  CHECK(short_back->loops[0].regions[1].growth.empty());
  // A version 5 file has no growth curves: the flag is a reserved bit there.
  std::string v5 = psnap::to_binary(p, psnap::BinaryCompression::Stored, psnap::BodyLayout::Interleaved);
  v5[8] = 5;
  CHECK(error_of(v5).find("(.loops[0].regions[1].flags): reserved bits set") != std::string::npos);
  // Steps past the lifetime's end.
  auto late = p;
  late.loops[0].regions[1].growth.back() = 70000;
  CHECK(error_of(psnap::to_binary(late)).find("(.loops[0].regions[1].growth[7]): past the lifetime's end (65536)") !=
        std::string::npos);
  // The JSON export checks the same, and the count and the order.
  auto json_error = [&](auto edit) {
    auto j = psnap::to_json(p);
    edit(j["loops"][0]["regions"][1]["growth"]);
    auto q = psnap::from_json(j);
    return q.ok() ? std::string() : q.error().message;
  };
  CHECK(json_error([](auto& g) { g.erase(g.begin()); }).find("growth: expected 8 shares") != std::string::npos);
  CHECK(json_error([](auto& g) { g[3] = 3999u; }).find("growth[3]: below the one before") != std::string::npos);
  CHECK(json_error([](auto& g) { g[7] = 65537u; }).find("growth[7]: past the lifetime's end") != std::string::npos);
}

TEST_CASE("psnap binary profile: a region's activity curve round-trips (version 8), and a bad one is named") {
  auto p = mixed_profile();
  auto& r = p.loops[0].regions[1];
  r.first_instance = 2;
  r.last_instance = 9;
  r.activity = {300, 700, 1500, 1500, 2600, 5000, 9000, 65536};
  CHECK(round_trips(p).loops[0].regions[1].activity == r.activity);
  // A version 7 file has no activity curves: the flag (bit 6) is a reserved bit there.
  std::string v7 = psnap::to_binary(p, psnap::BinaryCompression::Stored, psnap::BodyLayout::Interleaved);
  v7[8] = 7;
  CHECK(error_of(v7).find("(.loops[0].regions[1].flags): reserved bits set") != std::string::npos);
  // Steps past the lifetime's end; a curve for a region of one instance.
  auto late = p;
  late.loops[0].regions[1].activity.back() = 70000;
  CHECK(error_of(psnap::to_binary(late)).find("(.loops[0].regions[1].activity[7]): past the lifetime's end (65536)") !=
        std::string::npos);
  auto single = p;
  single.loops[0].regions[1].last_instance = 2;
  CHECK(error_of(psnap::to_binary(single)).find("(.loops[0].regions[1].activity): flagged for a region of one instance") !=
        std::string::npos);
  // The JSON export checks the same, and the count and the order.
  auto json_error = [&](auto edit) {
    auto j = psnap::to_json(p);
    edit(j["loops"][0]["regions"][1]);
    auto q = psnap::from_json(j);
    return q.ok() ? std::string() : q.error().message;
  };
  CHECK(json_error([](auto& g) { g["activity"].erase(g["activity"].begin()); }).find("activity: expected 8 shares") != std::string::npos);
  CHECK(json_error([](auto& g) { g["activity"][4] = 1499u; }).find("activity[4]: below the one before") != std::string::npos);
  CHECK(json_error([](auto& g) { g["activity"][7] = 65537u; }).find("activity[7]: past the lifetime's end") != std::string::npos);
  CHECK(json_error([](auto& g) { g["instances_seen"][1] = 2u; }).find("activity: given for a region of one instance") != std::string::npos);
}

namespace {
// The first region with two footprint blocks or more (loop, region); fails the test if none.
std::pair<std::size_t, std::size_t> region_with_blocks(const psnap::StreamProfile& p) {
  for (std::size_t l = 0; l < p.loops.size(); ++l)
    for (std::size_t r = 0; r < p.loops[l].regions.size(); ++r)
      if (p.loops[l].regions[r].footprint.size() >= 2) return {l, r};
  FAIL("no region with footprint blocks");
  return {0, 0};
}
}  // namespace

TEST_CASE("psnap binary profile: a merged region's footprint blocks round-trip (version 7), and a bad one is named") {
  const auto p = mixed_profile();
  // The pointer chase over 6.4 MB: merged regions, each with the 64 KiB blocks of its lines.
  const auto [li, ri] = region_with_blocks(p);
  const auto& m = p.loops[li].regions[ri];
  CHECK(m.merged > 0);
  std::uint64_t sum = 0;
  for (const auto& [block, lines] : m.footprint) sum += lines;
  CHECK(sum == m.working_set);
  CHECK(round_trips(p).loops[li].regions[ri].footprint == m.footprint);
  const std::string at = "(.loops[" + std::to_string(li) + "].regions[" + std::to_string(ri) + "].";
  // A version 6 file has no footprint blocks: the flag is a reserved bit there.
  std::string v6 = psnap::to_binary(p, psnap::BinaryCompression::Stored, psnap::BodyLayout::Interleaved);
  v6[8] = 6;
  CHECK(error_of(v6).find("reserved bits set") != std::string::npos);
  // Lines that do not add up to the working set, a block past the range, a block over-full.
  auto more = p;
  more.loops[li].regions[ri].working_set += 1;
  CHECK(error_of(psnap::to_binary(more)).find(at + "footprint): lines add up to " + std::to_string(sum) +
                                              ", not the working set " + std::to_string(sum + 1)) != std::string::npos);
  auto past = p;
  auto& pr = past.loops[li].regions[ri];
  pr.footprint.back().first = (pr.last >> psnap::RegionProfile::kFootprintBlockShift) + 1;
  CHECK(error_of(psnap::to_binary(past)).find(at + "footprint[" + std::to_string(pr.footprint.size() - 1) +
                                              "]): block outside [base, last]") != std::string::npos);
  auto full = p;
  auto& fr = full.loops[li].regions[ri];
  fr.working_set += 1025 - fr.footprint[0].second;
  fr.footprint[0].second = 1025;
  CHECK(error_of(psnap::to_binary(full)).find(at + "footprint[0]): more lines than the block holds") != std::string::npos);
  // The JSON export checks the same, and the blocks' addresses and order.
  auto json_error = [&](auto edit) {
    auto j = psnap::to_json(p);
    edit(j["loops"][li]["regions"][ri]);
    auto q = psnap::from_json(j);
    return q.ok() ? std::string() : q.error().message;
  };
  CHECK(json_error([](auto& r) { r["footprint"][0][1] = 0u; }).find("footprint[0][1]: expected 1 .. ") != std::string::npos);
  CHECK(json_error([](auto& r) { r["footprint"][0][0] = r["footprint"][0][0].template get<std::uint64_t>() + 64; })
            .find("footprint[0][0]: not a 64 KiB block's address") != std::string::npos);
  CHECK(json_error([](auto& r) { r["footprint"][1][0] = r["footprint"][0][0]; })
            .find("footprint[1][0]: not above the block before") != std::string::npos);
  CHECK(json_error([](auto& r) { r["working_set"] = r["working_set"].template get<std::uint64_t>() + 1; })
            .find("footprint: lines add up to") != std::string::npos);
  CHECK(json_error([](auto& r) { r["footprint"] = hmtt::analysis::Json::array(); }).find("footprint: expected [[block address, lines]") !=
        std::string::npos);
}

TEST_CASE("psnap binary profile: the footprint blocks' open times round-trip (version 9), and bad ones are named") {
  const auto p = mixed_profile();
  const auto [li, ri] = region_with_blocks(p);
  const auto& m = p.loops[li].regions[ri];
  // The profiler gives every block its open time, within the lifetime, not all the same.
  REQUIRE(m.footprint_open.size() == m.footprint.size());
  CHECK(*std::max_element(m.footprint_open.begin(), m.footprint_open.end()) <= psnap::RegionProfile::kGrowthScale);
  CHECK(*std::min_element(m.footprint_open.begin(), m.footprint_open.end()) <
        *std::max_element(m.footprint_open.begin(), m.footprint_open.end()));
  CHECK(round_trips(p).loops[li].regions[ri].footprint_open == m.footprint_open);
  const std::string at = "(.loops[" + std::to_string(li) + "].regions[" + std::to_string(ri) + "].";
  // A version 8 file has no open times: the flag (bit 7) is a reserved bit there.
  std::string v8 = psnap::to_binary(p, psnap::BinaryCompression::Stored, psnap::BodyLayout::Interleaved);
  v8[8] = 8;
  CHECK(error_of(v8).find(at + "flags): reserved bits set") != std::string::npos);
  // A profile without them (JSON or older) writes none and reads back without them.
  auto none = p;
  none.loops[li].regions[ri].footprint_open.clear();
  CHECK(round_trips(none).loops[li].regions[ri].footprint_open.empty());
  auto late = p;
  late.loops[li].regions[ri].footprint_open[1] = 70000;
  CHECK(error_of(psnap::to_binary(late)).find(at + "footprint_open[1]): past the lifetime's end (65536)") != std::string::npos);
  auto json_error = [&](auto edit) {
    auto j = psnap::to_json(p);
    edit(j["loops"][li]["regions"][ri]);
    auto q = psnap::from_json(j);
    return q.ok() ? std::string() : q.error().message;
  };
  CHECK(json_error([](auto&) {}).empty());
  CHECK(json_error([](auto& r) { r["footprint"][0][2] = 65537u; }).find("footprint[0][2]: expected 0 .. 65536") != std::string::npos);
  CHECK(json_error([](auto& r) { r["footprint"][1].erase(2); }).find("footprint: an open time on some blocks but not all") !=
        std::string::npos);
  CHECK(json_error([](auto& r) { r["footprint"][0].push_back(1u); }).find("footprint[0]: expected [block address, lines(, open)]") !=
        std::string::npos);
}
