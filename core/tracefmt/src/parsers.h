// One line parser per text format. parse() turns one line into a Reference, or
// says the line holds no reference (blank, comment, header, valgrind message,
// a Dinero flush record), or says what is wrong with it. The reader around
// them (reader.cpp) adds the file name, the line number and the time of
// untimed formats. The grammar of each is in docs/trace-formats.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hmtt/reference.h"
#include "hmtt/tracefmt/format.h"
#include "text.h"

namespace hmtt::tracefmt::detail {

enum class LineKind {
  Reference,      // `r` holds a reference
  Ignored,        // no record on this line
  SkippedRecord,  // a record of the format that is not a memory reference
  Error,          // `why` says what is wrong
};

inline LineKind fail(std::string& why, std::string msg) {
  why = std::move(msg);
  return LineKind::Error;
}

inline LineKind number_error(std::string& why, NumStatus st, std::string_view field, std::string_view tok,
                             int bits = 64) {
  if (st == NumStatus::Overflow)
    return fail(why, std::string(field) + " " + quote(tok) + " does not fit in " + std::to_string(bits) + " bits");
  return fail(why, "bad " + std::string(field) + " " + quote(tok));
}

// Hex address token with optional 0x.
HMTT_HOT bool parse_address(std::string_view tok, std::uint64_t& addr, std::string& why, LineKind& out) {
  if (tok.empty()) {
    out = fail(why, "missing address");
    return false;
  }
  NumStatus st = parse_hex_opt0x(tok, addr);
  if (st != NumStatus::Ok) {
    out = number_error(why, st, "address", tok);
    return false;
  }
  return true;
}

// Dinero classic din: "label address [ignored...]", label and address in hex.
// Labels (Dinero IV d4.h): 0 read, 1 write, 2 ifetch, 3 misc (a read that
// does not prefetch), 4 copy-back (flush), 5 invalidate.
struct DinParser {
  static constexpr Format kFormat = Format::Din;
  LineKind parse(std::string_view line, Reference& r, std::string& why) {
    std::string_view tok = next_token(line);
    if (tok.empty()) return LineKind::Ignored;
    std::uint64_t label = 0;
    NumStatus st = parse_hex_opt0x(tok, label);
    if (st == NumStatus::Bad) return fail(why, "bad label " + quote(tok));
    if (st == NumStatus::Overflow || label > 5) return fail(why, "unknown label " + quote(tok));
    LineKind out = LineKind::Reference;
    std::string_view atok = next_token(line);
    if (atok.empty()) return fail(why, "missing address after label " + quote(tok));
    if (!parse_address(atok, r.address, why, out)) return out;
    if (label >= 4) return LineKind::SkippedRecord;
    static constexpr Kind kinds[] = {Kind::Read, Kind::Write, Kind::IFetch, Kind::Read};
    r.kind = kinds[label];
    r.size = 4;  // Dinero IV assumes 4-byte accesses for din input
    r.origin = Origin::Unknown;
    r.source = 0;
    return LineKind::Reference;
  }
};

// Dinero IV extended din: "accesstype address size [ignored...]", accesstype
// one of r w i m c v (either case), address and size in hex.
struct XDinParser {
  static constexpr Format kFormat = Format::XDin;
  LineKind parse(std::string_view line, Reference& r, std::string& why) {
    std::string_view tok = next_token(line);
    if (tok.empty()) return LineKind::Ignored;
    bool skipped = false;
    if (tok.size() != 1) return fail(why, "unknown access type " + quote(tok) + " (expected r, w, i, m, c or v)");
    switch (tok[0]) {
      case 'r': case 'R': r.kind = Kind::Read; break;
      case 'w': case 'W': r.kind = Kind::Write; break;
      case 'i': case 'I': r.kind = Kind::IFetch; break;
      case 'm': case 'M': r.kind = Kind::Read; break;
      case 'c': case 'C': case 'v': case 'V': skipped = true; break;
      default: return fail(why, "unknown access type " + quote(tok) + " (expected r, w, i, m, c or v)");
    }
    LineKind out = LineKind::Reference;
    if (!parse_address(next_token(line), r.address, why, out)) return out;
    std::string_view stok = next_token(line);
    if (stok.empty()) return fail(why, "missing size");
    std::uint64_t size = 0;
    NumStatus st = parse_hex_opt0x(stok, size);
    if (st == NumStatus::Ok && size > UINT32_MAX) st = NumStatus::Overflow;
    if (st != NumStatus::Ok) return number_error(why, st, "size", stok, 32);
    if (skipped) return LineKind::SkippedRecord;
    r.size = static_cast<std::uint32_t>(size);
    r.origin = Origin::Unknown;
    r.source = 0;
    return LineKind::Reference;
  }
};

// Valgrind lackey --trace-mem=yes: "I  addr,size", " L addr,size",
// " S addr,size", " M addr,size" (address hex, size decimal), valgrind's own
// "==pid== text" lines and "SB addr" superblock lines (--trace-superblocks=yes),
// which are checked and skipped.
struct LackeyParser {
  static constexpr Format kFormat = Format::Lackey;
  LineKind parse(std::string_view line, Reference& r, std::string& why) {
    if (line.size() >= 2 && line[0] == '=' && line[1] == '=') {
      std::size_t i = 2;
      while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
      if (i == 2 || line.compare(i, 2, "==") != 0)
        return fail(why, "malformed valgrind message line (expected '==pid== ...')");
      return LineKind::Ignored;
    }
    std::string_view rest;
    if (line.size() >= 2 && line[0] == 'I' && is_blank(line[1])) {
      r.kind = Kind::IFetch;
      rest = line.substr(2);
    } else if (line.size() >= 3 && line[0] == ' ' && is_blank(line[2]) &&
               (line[1] == 'L' || line[1] == 'S' || line[1] == 'M')) {
      r.kind = line[1] == 'L' ? Kind::Read : line[1] == 'S' ? Kind::Write : Kind::Modify;
      rest = line.substr(3);
    } else if (all_blank(line)) {
      return LineKind::Ignored;
    } else if (line.size() >= 3 && line[0] == 'S' && line[1] == 'B' && is_blank(line[2])) {
      // "SB addr": a superblock entry (--trace-superblocks=yes), not a memory access.
      std::string_view rest_sb = line.substr(3);
      std::uint64_t addr = 0;
      LineKind out = LineKind::Ignored;
      if (!parse_address(next_token(rest_sb), addr, why, out)) return out;
      if (!all_blank(rest_sb)) return fail(why, "unexpected text after the superblock address: " + quote(rest_sb));
      return LineKind::Ignored;
    } else {
      return fail(why, "unrecognised line " + quote(line) +
                           " (expected 'I  addr,size', ' L|S|M addr,size' or '==pid== ...')");
    }
    std::string_view field = next_token(rest);
    if (!all_blank(rest)) return fail(why, "unexpected text after the size: " + quote(rest));
    auto comma = field.find(',');
    if (comma == std::string_view::npos) return fail(why, "missing ',size' in " + quote(field));
    LineKind out = LineKind::Reference;
    if (!parse_address(field.substr(0, comma), r.address, why, out)) return out;
    std::string_view stok = field.substr(comma + 1);
    std::uint64_t size = 0;
    NumStatus st = parse_uint(stok, size, 10);
    if (st == NumStatus::Ok && size > UINT32_MAX) st = NumStatus::Overflow;
    if (st != NumStatus::Ok) return number_error(why, st, "size", stok, 32);
    r.size = static_cast<std::uint32_t>(size);
    r.origin = Origin::Unknown;
    r.source = 0;
    return LineKind::Reference;
  }
};

// DRAMsim3 trace: "0xaddr READ|WRITE cycle" (address hex, cycle decimal).
struct DramSim3Parser {
  static constexpr Format kFormat = Format::DramSim3;
  LineKind parse(std::string_view line, Reference& r, std::string& why) {
    std::string_view atok = next_token(line);
    if (atok.empty()) return LineKind::Ignored;
    LineKind out = LineKind::Reference;
    if (!parse_address(atok, r.address, why, out)) return out;
    std::string_view op = next_token(line);
    if (op == "READ") {
      r.kind = Kind::Read;
    } else if (op == "WRITE") {
      r.kind = Kind::Write;
    } else {
      return fail(why, op.empty() ? std::string("missing access type (expected READ or WRITE)")
                                  : "unknown access type " + quote(op) + " (expected READ or WRITE)");
    }
    std::string_view ctok = next_token(line);
    if (ctok.empty()) return fail(why, "missing cycle");
    NumStatus st = parse_uint(ctok, r.time, 10);
    if (st != NumStatus::Ok) return number_error(why, st, "cycle", ctok);
    if (!all_blank(line)) return fail(why, "unexpected text after the cycle: " + quote(line));
    r.size = 0;
    r.origin = Origin::Unknown;
    r.source = 0;
    return LineKind::Reference;
  }
};

// DRAMSys trace player: "clk: [(len)] read|write 0xaddr [0xdata]"; '#' starts
// a comment line. In .stl files clk is the absolute time in player clocks,
// in .rstl files the delay since the previous line.
template <bool Relative>
struct StlParserT {
  static constexpr Format kFormat = Relative ? Format::Rstl : Format::Stl;
  std::uint64_t now = 0;
  LineKind parse(std::string_view line, Reference& r, std::string& why) {
    std::string_view tok = next_token(line);
    if (tok.empty() || tok[0] == '#') return LineKind::Ignored;
    std::string_view clk = tok;
    if (clk.back() == ':') clk.remove_suffix(1);
    std::uint64_t t = 0;
    NumStatus st = parse_uint(clk, t, 10);
    if (st != NumStatus::Ok) return number_error(why, st, "clock", tok);
    if constexpr (Relative) {
      if (t > UINT64_MAX - now) return fail(why, "time overflows 64 bits");
      now += t;
      r.time = now;
    } else {
      r.time = t;
    }
    std::string_view op = next_token(line);
    r.size = 0;
    if (!op.empty() && op[0] == '(') {
      if (op.size() < 3 || op.back() != ')') return fail(why, "bad length field " + quote(op));
      std::uint64_t len = 0;
      st = parse_uint(op.substr(1, op.size() - 2), len, 10);
      if (st == NumStatus::Ok && len > UINT32_MAX) st = NumStatus::Overflow;
      if (st != NumStatus::Ok) return number_error(why, st, "length", op, 32);
      r.size = static_cast<std::uint32_t>(len);
      op = next_token(line);
    }
    if (op == "read") {
      r.kind = Kind::Read;
    } else if (op == "write") {
      r.kind = Kind::Write;
    } else {
      return fail(why, op.empty() ? std::string("missing command (expected read or write)")
                                  : "unknown command " + quote(op) + " (expected read or write)");
    }
    LineKind out = LineKind::Reference;
    if (!parse_address(next_token(line), r.address, why, out)) return out;
    std::string_view data = next_token(line);
    if (!data.empty()) {
      if (!has_0x(data) || data.size() < 4 || data.size() % 2 != 0)
        return fail(why, "bad data field " + quote(data) + " (expected 0x and two hex digits per byte)");
      for (std::size_t i = 2; i < data.size(); ++i) {
        char c = data[i];
        bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        if (!hex) return fail(why, "bad data field " + quote(data));
      }
      std::uint64_t bytes = (data.size() - 2) / 2;
      if (r.size != 0 && bytes != r.size)
        return fail(why, "data holds " + std::to_string(bytes) + " bytes, the length field says " +
                             std::to_string(r.size));
    }
    if (!all_blank(line)) return fail(why, "unexpected text after the data: " + quote(line));
    r.origin = Origin::Unknown;
    r.source = 0;
    return LineKind::Reference;
  }
};
using StlParser = StlParserT<false>;
using RstlParser = StlParserT<true>;

inline constexpr std::string_view kCsvHeader = "time,address,kind,size,origin,source";

// hmtt CSV: the header line, then "time,address,kind,size,origin,source" with
// time/size/source decimal, address 0x-hex (or decimal), kind and origin by name.
struct CsvParser {
  static constexpr Format kFormat = Format::Csv;
  bool header_seen = false;
  LineKind parse(std::string_view line, Reference& r, std::string& why) {
    if (all_blank(line)) return LineKind::Ignored;
    if (!header_seen) {
      if (line != kCsvHeader)
        return fail(why, "expected the header '" + std::string(kCsvHeader) + "', found " + quote(line));
      header_seen = true;
      return LineKind::Ignored;
    }
    std::string_view f[6];
    std::size_t n = 0;
    std::size_t start = 0;
    for (;;) {
      std::size_t comma = line.find(',', start);
      std::string_view field = line.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                                  : comma - start);
      if (n < 6) f[n] = field;
      ++n;
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    if (n != 6) return fail(why, "expected 6 fields, found " + std::to_string(n));
    NumStatus st = parse_uint(f[0], r.time, 10);
    if (st != NumStatus::Ok) return number_error(why, st, "time", f[0]);
    st = has_0x(f[1]) ? parse_uint(f[1].substr(2), r.address, 16) : parse_uint(f[1], r.address, 10);
    if (st != NumStatus::Ok) return number_error(why, st, "address", f[1]);
    if (f[2] == "read") r.kind = Kind::Read;
    else if (f[2] == "write") r.kind = Kind::Write;
    else if (f[2] == "ifetch") r.kind = Kind::IFetch;
    else if (f[2] == "modify") r.kind = Kind::Modify;
    else return fail(why, "unknown kind " + quote(f[2]) + " (expected read, write, ifetch or modify)");
    std::uint64_t v = 0;
    st = parse_uint(f[3], v, 10);
    if (st == NumStatus::Ok && v > UINT32_MAX) st = NumStatus::Overflow;
    if (st != NumStatus::Ok) return number_error(why, st, "size", f[3], 32);
    r.size = static_cast<std::uint32_t>(v);
    if (f[4] == "unknown") r.origin = Origin::Unknown;
    else if (f[4] == "cpu") r.origin = Origin::Cpu;
    else if (f[4] == "dma") r.origin = Origin::Dma;
    else if (f[4] == "dma-modelled") r.origin = Origin::DmaModelled;
    else return fail(why, "unknown origin " + quote(f[4]) + " (expected unknown, cpu, dma or dma-modelled)");
    st = parse_uint(f[5], v, 10);
    if (st == NumStatus::Ok && v > UINT16_MAX) st = NumStatus::Overflow;
    if (st != NumStatus::Ok) return number_error(why, st, "source", f[5], 16);
    r.source = static_cast<std::uint16_t>(v);
    return LineKind::Reference;
  }
};

}  // namespace hmtt::tracefmt::detail
