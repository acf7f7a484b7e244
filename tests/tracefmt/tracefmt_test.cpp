// Trace-file formats: known-answer parses, byte-identical file -> stream ->
// file round trips of canonical files, the documented normalisations, exact
// error messages, detection, and streaming through a small buffer.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hmtt/tracefmt/convert.h"
#include "hmtt/tracefmt/format.h"
#include "hmtt/tracefmt/reader.h"
#include "hmtt/tracefmt/writer.h"
#include "../temp_dir.h"

using namespace hmtt;
using namespace hmtt::tracefmt;
namespace fs = std::filesystem;

namespace {

struct TempDir : hmtt::test::TempDir {
  TempDir() : hmtt::test::TempDir("hmtt-tracefmt-test") {}
};

std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<std::vector<Reference>> parse(const std::string& text, Format f, const std::string& name = "t") {
  auto r = reader_from_memory(text, name, f);
  return collect(*r);
}

std::string render(const std::vector<Reference>& refs, Format f) {
  std::string out;
  auto w = writer_to_string(&out, f);
  REQUIRE(w->write(refs).ok());
  REQUIRE(w->finish().ok());
  return out;
}

std::string error_of(const std::string& text, Format f, const std::string& name) {
  auto refs = parse(text, f, name);
  REQUIRE_FALSE(refs.ok());
  return refs.error().message;
}

Reference ref(std::uint64_t t, std::uint64_t a, std::uint32_t s, Kind k, Origin o = Origin::Unknown,
              std::uint16_t src = 0) {
  return Reference{t, a, s, k, o, src};
}

}  // namespace

TEST_CASE("din: labels, hex addresses, time = record index, round trip") {
  const std::string text = "2 0\n0 1000\n0 70f60888\n2 2cb5\n1 70f60890\n";
  auto refs = parse(text, Format::Din);
  REQUIRE(refs.ok());
  std::vector<Reference> expect{ref(0, 0, 4, Kind::IFetch), ref(1, 0x1000, 4, Kind::Read),
                                ref(2, 0x70f60888, 4, Kind::Read), ref(3, 0x2cb5, 4, Kind::IFetch),
                                ref(4, 0x70f60890, 4, Kind::Write)};
  CHECK(*refs == expect);
  CHECK(render(*refs, Format::Din) == text);
}

TEST_CASE("din: normalisation of misc, flush, 0x prefixes and comments") {
  // label 3 (misc) reads as a read; 4 and 5 (copy-back, invalidate) are records but no references;
  // the rest of a line is a comment, as in Dinero.
  auto refs = parse("3 0x40 comment here\n4 0\n0x0 0XfF\n5 0\n1 ABC\n", Format::Din);
  REQUIRE(refs.ok());
  std::vector<Reference> expect{ref(0, 0x40, 4, Kind::Read), ref(2, 0xff, 4, Kind::Read),
                                ref(4, 0xabc, 4, Kind::Write)};
  CHECK(*refs == expect);
  auto reader = reader_from_memory("3 40\n4 0\n", "t", Format::Din);
  REQUIRE(collect(*reader).ok());
  CHECK(reader->counts().skipped_records == 1);
  CHECK(reader->counts().references == 1);
  CHECK(render({ref(0, 0x10, 8, Kind::Modify)}, Format::Din) == "1 10\n");
}

TEST_CASE("xdin: access types, hex size, round trip") {
  const std::string text = "i 400100 4\nr 7fff0010 8\nw 7fff0018 2\n";
  auto refs = parse(text, Format::XDin);
  REQUIRE(refs.ok());
  std::vector<Reference> expect{ref(0, 0x400100, 4, Kind::IFetch), ref(1, 0x7fff0010, 8, Kind::Read),
                                ref(2, 0x7fff0018, 2, Kind::Write)};
  CHECK(*refs == expect);
  CHECK(render(*refs, Format::XDin) == text);
  auto norm = parse("M 0x10 0x10 misc\nc 0 4\nV 0 4\nR 20 1\n", Format::XDin);
  REQUIRE(norm.ok());
  CHECK(*norm == std::vector<Reference>{ref(0, 0x10, 16, Kind::Read), ref(3, 0x20, 1, Kind::Read)});
}

TEST_CASE("lackey: instruction and data records, valgrind lines skipped, round trip") {
  const std::string body = "I  0401ab70,3\n S 1fff0006f8,8\n L 04226e50,8\n M 1ffefffc40,4\nI  0401b771,7\n";
  const std::string text = "==7218== Lackey, an example Valgrind tool\n==7218== \n" + body + "==7218== Exit code:       0\n";
  auto reader = reader_from_memory(text, "t", Format::Lackey);
  auto refs = collect(*reader);
  REQUIRE(refs.ok());
  std::vector<Reference> expect{ref(0, 0x401ab70, 3, Kind::IFetch), ref(1, 0x1fff0006f8, 8, Kind::Write),
                                ref(2, 0x4226e50, 8, Kind::Read), ref(3, 0x1ffefffc40, 4, Kind::Modify),
                                ref(4, 0x401b771, 7, Kind::IFetch)};
  CHECK(*refs == expect);
  CHECK(reader->counts().ignored_lines == 3);
  CHECK(reader->counts().by_kind[static_cast<int>(Kind::IFetch)] == 2);
  CHECK(render(*refs, Format::Lackey) == body);
  // --trace-superblocks=yes adds "SB addr" lines: checked, then skipped.
  auto sb = parse("SB 0401ab70\nI  0401ab70,3\n", Format::Lackey);
  REQUIRE(sb.ok());
  CHECK(*sb == std::vector<Reference>{ref(0, 0x401ab70, 3, Kind::IFetch)});
  CHECK(error_of("SB 04x\n", Format::Lackey, "l.txt") == "l.txt:1: bad address '04x'");
}

TEST_CASE("dramsim3: address, command, cycle, round trip") {
  const std::string text = "0x12345680 READ 121\n0x4055a300 WRITE 130\n0x4055a300 READ 130\n";
  auto refs = parse(text, Format::DramSim3);
  REQUIRE(refs.ok());
  CHECK(*refs == std::vector<Reference>{ref(121, 0x12345680, 0, Kind::Read), ref(130, 0x4055a300, 0, Kind::Write),
                                        ref(130, 0x4055a300, 0, Kind::Read)});
  CHECK(render(*refs, Format::DramSim3) == text);
  CHECK(render({ref(5, 0x40, 8, Kind::Modify), ref(6, 0x80, 4, Kind::IFetch)}, Format::DramSim3) ==
        "0x40 WRITE 5\n0x80 READ 6\n");
}

TEST_CASE("stl and rstl: clocks, optional length, data dropped, round trip") {
  const std::string text = "0:\tread\t0x0\n31:\t(64)\twrite\t0x400140\n62:\tread\t0x7fff40\n";
  auto refs = parse(text, Format::Stl);
  REQUIRE(refs.ok());
  std::vector<Reference> expect{ref(0, 0, 0, Kind::Read), ref(31, 0x400140, 64, Kind::Write),
                                ref(62, 0x7fff40, 0, Kind::Read)};
  CHECK(*refs == expect);
  CHECK(render(*refs, Format::Stl) == text);
  // Relative: each clock is the delay since the previous line.
  const std::string rel = "0:\tread\t0x0\n31:\t(64)\twrite\t0x400140\n31:\tread\t0x7fff40\n";
  auto rrefs = parse(rel, Format::Rstl);
  REQUIRE(rrefs.ok());
  CHECK(*rrefs == expect);
  CHECK(render(*rrefs, Format::Rstl) == rel);
  // Comments, blank lines and write data (checked, then dropped).
  auto with_data = parse("# a DRAMSys trace\n\n10: (2) write 0x80 0x0aFF\n12: write 0x90 0x00112233\n", Format::Stl);
  REQUIRE(with_data.ok());
  CHECK(*with_data == std::vector<Reference>{ref(10, 0x80, 2, Kind::Write), ref(12, 0x90, 0, Kind::Write)});
}

TEST_CASE("csv: every field round-trips") {
  const std::string text =
      "time,address,kind,size,origin,source\n"
      "0,0x1000,read,64,cpu,3\n"
      "5,0xffffffffffffffc0,write,8,dma,65535\n"
      "5,0x0,ifetch,0,unknown,0\n"
      "18446744073709551615,0x40,modify,4294967295,dma-modelled,7\n";
  auto refs = parse(text, Format::Csv);
  REQUIRE(refs.ok());
  std::vector<Reference> expect{ref(0, 0x1000, 64, Kind::Read, Origin::Cpu, 3),
                                ref(5, 0xffffffffffffffc0, 8, Kind::Write, Origin::Dma, 65535),
                                ref(5, 0, 0, Kind::IFetch), ref(UINT64_MAX, 0x40, UINT32_MAX, Kind::Modify,
                                                                Origin::DmaModelled, 7)};
  CHECK(*refs == expect);
  CHECK(render(*refs, Format::Csv) == text);
  auto dec = parse("time,address,kind,size,origin,source\r\n1,4096,read,4,cpu,0\r\n", Format::Csv);
  REQUIRE(dec.ok());
  CHECK(*dec == std::vector<Reference>{ref(1, 4096, 4, Kind::Read, Origin::Cpu, 0)});
}

TEST_CASE("random streams survive every format modulo the documented normalisation") {
  std::mt19937_64 rng(42);
  std::vector<Reference> refs;
  std::uint64_t t = 0;
  for (int i = 0; i < 5000; ++i) {
    t += rng() % 3;
    refs.push_back(ref(t, rng() >> (rng() % 64), static_cast<std::uint32_t>(rng() % 130),
                       static_cast<Kind>(rng() % 4), static_cast<Origin>(rng() % 4),
                       static_cast<std::uint16_t>(rng())));
  }
  for (Format f : kAllFormats) {
    if (f == Format::Store) continue;
    CAPTURE(format_name(f));
    std::string text = render(refs, f);
    auto back = parse(text, f);
    REQUIRE(back.ok());
    REQUIRE(back->size() == refs.size());
    for (std::size_t i = 0; i < refs.size(); ++i) {
      Reference want = round_trip_of(f, refs[i]);
      if (!carries_time(f)) want.time = i;
      REQUIRE((*back)[i] == want);
    }
    CHECK(render(*back, f) == text);  // canonical text is a fixed point
  }
}

TEST_CASE("malformed input stops with file, line and reason") {
  CHECK(error_of("0 10\n1 20\n9 30\n", Format::Din, "trace.din") == "trace.din:3: unknown label '9'");
  CHECK(error_of("x 10\n", Format::Din, "a.din") == "a.din:1: bad label 'x'");
  CHECK(error_of("0\n", Format::Din, "a.din") == "a.din:1: missing address after label '0'");
  CHECK(error_of("0 10g\n", Format::Din, "a.din") == "a.din:1: bad address '10g'");
  CHECK(error_of("0 10000000000000000\n", Format::Din, "a.din") ==
        "a.din:1: address '10000000000000000' does not fit in 64 bits");
  CHECK(error_of("r 10 4\nq 10 4\n", Format::XDin, "b.xdin") ==
        "b.xdin:2: unknown access type 'q' (expected r, w, i, m, c or v)");
  CHECK(error_of("r 10\n", Format::XDin, "b.xdin") == "b.xdin:1: missing size");
  CHECK(error_of("r 10 100000000\n", Format::XDin, "b.xdin") ==
        "b.xdin:1: size '100000000' does not fit in 32 bits");
  CHECK(error_of("I  0401ab70,3\n X 10,4\n", Format::Lackey, "l.txt") ==
        "l.txt:2: unrecognised line ' X 10,4' (expected 'I  addr,size', ' L|S|M addr,size' or '==pid== ...')");
  CHECK(error_of(" L 0401ab70\n", Format::Lackey, "l.txt") == "l.txt:1: missing ',size' in '0401ab70'");
  CHECK(error_of(" L 0401ab70,x\n", Format::Lackey, "l.txt") == "l.txt:1: bad size 'x'");
  CHECK(error_of("==12a== hi\n", Format::Lackey, "l.txt") ==
        "l.txt:1: malformed valgrind message line (expected '==pid== ...')");
  CHECK(error_of("0x10 READ 5\n0x10 FETCH 6\n", Format::DramSim3, "d.trace") ==
        "d.trace:2: unknown access type 'FETCH' (expected READ or WRITE)");
  CHECK(error_of("0x10 READ\n", Format::DramSim3, "d.trace") == "d.trace:1: missing cycle");
  CHECK(error_of("0x10 READ 5 extra\n", Format::DramSim3, "d.trace") ==
        "d.trace:1: unexpected text after the cycle: ' extra'");
  CHECK(error_of("0x10 READ 9\n0x10 READ 5\n", Format::DramSim3, "d.trace") ==
        "d.trace:2: time 5 is before the previous reference's 9 (hmtt needs references in time order)");
  CHECK(error_of("5: fetch 0x10\n", Format::Stl, "s.stl") ==
        "s.stl:1: unknown command 'fetch' (expected read or write)");
  CHECK(error_of("5: (2) write 0x10 0x001122\n", Format::Stl, "s.stl") ==
        "s.stl:1: data holds 3 bytes, the length field says 2");
  CHECK(error_of("5x: read 0x10\n", Format::Stl, "s.stl") == "s.stl:1: bad clock '5x:'");
  CHECK(error_of("time,address\n", Format::Csv, "c.csv") ==
        "c.csv:1: expected the header 'time,address,kind,size,origin,source', found 'time,address'");
  CHECK(error_of("time,address,kind,size,origin,source\n1,0x10,read,4,cpu\n", Format::Csv, "c.csv") ==
        "c.csv:2: expected 6 fields, found 5");
  CHECK(error_of("time,address,kind,size,origin,source\n1,0x10,load,4,cpu,0\n", Format::Csv, "c.csv") ==
        "c.csv:2: unknown kind 'load' (expected read, write, ifetch or modify)");
  CHECK(error_of("time,address,kind,size,origin,source\n1,0x10,read,4,cpu,65536\n", Format::Csv, "c.csv") ==
        "c.csv:2: source '65536' does not fit in 16 bits");
  CHECK(error_of("0 10\n0 \x01\xff\n", Format::Din, "a.din") == "a.din:2: bad address '\\x01\\xff'");
}

TEST_CASE("references before a bad line are delivered, then the error") {
  auto reader = reader_from_memory("0 10\n1 20\n9 30\n0 40\n", "trace.din", Format::Din);
  std::vector<Reference> buf(16);
  auto n = reader->read(buf);
  REQUIRE(n.ok());
  CHECK(*n == 2);
  auto e = reader->read(buf);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().message == "trace.din:3: unknown label '9'");
  auto again = reader->read(buf);
  REQUIRE_FALSE(again.ok());
}

TEST_CASE("format detection by extension and by content") {
  CHECK(format_from_extension("a/b/trace.din") == Format::Din);
  CHECK(format_from_extension("x.XDIN") == Format::XDin);
  CHECK(format_from_extension("x.stl") == Format::Stl);
  CHECK(format_from_extension("x.rstl") == Format::Rstl);
  CHECK(format_from_extension("x.csv") == Format::Csv);
  CHECK(format_from_extension("x.hmtt") == Format::Store);
  CHECK(format_from_extension("x.lackey") == Format::Lackey);
  CHECK(format_from_extension("x.trace") == Format::Auto);
  CHECK(format_from_extension(".din") == Format::Auto);
  CHECK(format_from_content("0 10\n2 400\n") == Format::Din);
  CHECK(format_from_content("r 10 4\n") == Format::XDin);
  CHECK(format_from_content("==1== Lackey\nI  0401ab70,3\n") == Format::Lackey);
  CHECK(format_from_content("0x10 READ 5\n") == Format::DramSim3);
  CHECK(format_from_content("# c\n5:\tread\t0x10\n") == Format::Stl);
  CHECK(format_from_content("time,address,kind,size,origin,source\n1,0x10,read,4,cpu,0\n") == Format::Csv);
  CHECK(format_from_content(std::string("SQLite format 3\0rest", 20)) == Format::Store);
  CHECK(format_from_content("hello world\n") == Format::Auto);
  TempDir dir;
  auto p = write_file(dir.file("t.trace"), "0x10 READ 5\n0x20 WRITE 6\n");
  auto f = detect_format(p);
  REQUIRE(f.ok());
  CHECK(*f == Format::DramSim3);
  auto unknown = detect_format(write_file(dir.file("t.txt"), "hello\n"));
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("t.txt: cannot tell the trace format") != std::string::npos);
  CHECK(parse_format("lackey").value() == Format::Lackey);
  CHECK(parse_format("store").value() == Format::Store);
  CHECK_FALSE(parse_format("pin").ok());
}

TEST_CASE("files stream through a small buffer with lines across its edges") {
  TempDir dir;
  std::mt19937_64 rng(7);
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    text += std::to_string(rng() % 3) + " " + std::to_string(rng() % 100000) + (i % 7 ? "\n" : "  some comment\n");
  }
  text += "1 abc";  // no newline at the end
  auto path = write_file(dir.file("big.din"), text);
  ReaderOptions small;
  small.buffer_bytes = 4096;
  auto reader = open_reader(path, Format::Auto, small);
  REQUIRE(reader.ok());
  CHECK((*reader)->format() == Format::Din);
  auto from_file = collect(**reader);
  REQUIRE(from_file.ok());
  auto from_memory = parse(text, Format::Din);
  REQUIRE(from_memory.ok());
  CHECK(from_file->size() == 20001);
  CHECK(*from_file == *from_memory);
  CHECK((*reader)->bytes_read() == text.size());
  CHECK((*reader)->total_bytes() == text.size());
  // A line longer than the buffer is an error naming the line, not a crash or a cut record.
  auto long_path = write_file(dir.file("long.din"), "0 10\n0 " + std::string(5000, '1') + "\n");
  auto long_reader = open_reader(long_path, Format::Din, small);
  REQUIRE(long_reader.ok());
  auto r = collect(**long_reader);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == long_path + ":2: line longer than 4096 bytes");
}

TEST_CASE("writers refuse to replace files unless asked, and export removes partial output") {
  TempDir dir;
  auto out = write_file(dir.file("x.din"), "keep\n");
  auto w = open_writer(out, Format::Din);
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().message == out + ": already exists (use --overwrite to replace it)");
  CHECK(read_file(out) == "keep\n");
  auto in = write_file(dir.file("in.din"), "0 10\n1 20\n7 30\n");
  ExportOptions opts;
  opts.format = Format::Csv;
  auto s = export_trace(in, dir.file("out.csv"), opts);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == in + ":3: unknown label '7'");
  CHECK_FALSE(fs::exists(dir.file("out.csv")));
  auto ok = export_trace(write_file(dir.file("in2.din"), "0 10\n1 20\n"), dir.file("out2.csv"), opts);
  REQUIRE(ok.ok());
  CHECK(ok->counts.references == 2);
  CHECK(read_file(dir.file("out2.csv")) ==
        "time,address,kind,size,origin,source\n0,0x10,read,4,unknown,0\n1,0x20,write,4,unknown,0\n");
  std::string rel;
  auto rw = writer_to_string(&rel, Format::Rstl);
  auto st = rw->write(std::vector<Reference>{ref(5, 0, 0, Kind::Read), ref(3, 0, 0, Kind::Read)});
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message == "reference 1: time 3 is before the previous reference's 5; .rstl delays cannot be negative");
}

TEST_CASE("open_trace opens every text format") {
  TempDir dir;
  auto p = write_file(dir.file("a.stl"), "1: read 0x10\n2: write 0x20\n");
  auto src = open_trace(p);
  REQUIRE(src.ok());
  auto refs = collect(**src);
  REQUIRE(refs.ok());
  CHECK(refs->size() == 2);
  auto missing = open_trace(dir.file("nope.din"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == dir.file("nope.din") + ": cannot open: No such file or directory");
}

TEST_CASE("hmtt export converts between trace files and reports malformed input with exit code 1") {
  const char* bin = std::getenv("HMTT_BIN");
  if (bin == nullptr) {
    MESSAGE("HMTT_BIN not set: verb test skipped");
    return;
  }
  TempDir dir;
  auto in = write_file(dir.file("t.lackey"), "==5== x\nI  00400000,4\n L 00601000,8\n M 00601008,4\n");
  std::string json = dir.file("out.json");
  std::string cmd = std::string(bin) + " export '" + in + "' -o '" + dir.file("t.xdin") + "' --json > '" + json + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(read_file(json) ==
        "{\"input\": \"" + in + "\", \"output\": \"" + dir.file("t.xdin") +
            "\", \"format\": \"xdin\", \"references\": 3, \"by_kind\": {\"read\": 1, \"write\": 0, \"ifetch\": 1, "
            "\"modify\": 1}, \"kind_normalised\": 1, \"bytes\": 33}\n");
  CHECK(read_file(dir.file("t.xdin")) == "i 400000 4\nr 601000 8\nw 601008 4\n");
  auto bad = write_file(dir.file("bad.csv"), "time,address,kind,size,origin,source\n1,0x10,read,4,cpu,0\n0,0x10,read,4,cpu,0\n");
  cmd = std::string(bin) + " export '" + bad + "' -o '" + dir.file("bad.din") + "' 2> '" + json + "'";
  int rc = std::system(cmd.c_str());
  CHECK(WEXITSTATUS(rc) == 1);
  CHECK(read_file(json) == "hmtt export: " + bad +
                               ":3: time 0 is before the previous reference's 1 (hmtt needs references in time order)\n");
  CHECK_FALSE(fs::exists(dir.file("bad.din")));
  cmd = std::string(bin) + " export '" + in + "' -o '" + dir.file("t.xdin") + "' 2> '" + json + "'";
  rc = std::system(cmd.c_str());
  CHECK(WEXITSTATUS(rc) == 1);
  CHECK(read_file(json) == "hmtt export: " + dir.file("t.xdin") + ": already exists (use --overwrite to replace it)\n");
}
