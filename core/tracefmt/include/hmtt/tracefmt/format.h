// Trace-file formats hmtt reads and writes (docs/trace-formats.md), and how a
// file's format is told from its name and its first lines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hmtt/result.h"

namespace hmtt::tracefmt {

enum class Format : std::uint8_t {
  Auto,      // tell from the file name, then from the content
  Din,       // Dinero III/IV classic "din": label address (labels 0..5)
  XDin,      // Dinero IV extended din: accesstype(r w i m c v) address size
  Lackey,    // Valgrind lackey --trace-mem=yes: "I  addr,size", " L|S|M addr,size"
  DramSim3,  // DRAMsim3 trace: 0xaddr READ|WRITE cycle
  Stl,       // DRAMSys .stl: clk: [(len)] read|write 0xaddr [0xdata] (absolute time)
  Rstl,      // DRAMSys .rstl: as .stl, the first field is a delay since the previous line
  Csv,       // hmtt CSV: time,address,kind,size,origin,source
  Store,     // an hmtt trace store (SQLite, docs/store.md)
};

// Every concrete format, in the order `--help` lists them.
inline constexpr Format kAllFormats[] = {Format::Din, Format::XDin, Format::Lackey, Format::DramSim3,
                                         Format::Stl, Format::Rstl, Format::Csv,    Format::Store};

// "din", "xdin", "lackey", "dramsim3", "stl", "rstl", "csv", "hmtt", "auto".
std::string_view format_name(Format f);
// Parses a name as printed by format_name (also "store" for Format::Store).
Result<Format> parse_format(std::string_view name);
// Comma-separated list of the names, for help texts; text formats only
// (what a trace file can be) unless with_store.
std::string format_names(bool with_store = true);

// The format a file name's extension says, or Format::Auto when the
// extension is unknown or ambiguous (.txt, .trace, .log, none).
Format format_from_extension(std::string_view path);

// The format of the given bytes (the start of a file), or Format::Auto when no
// format accepts its first lines.
Format format_from_content(std::string_view head);

// Extension first, then content (the first 64 KiB). An error names the file
// when it cannot be read or its format cannot be told.
Result<Format> detect_format(const std::string& path);

// True for formats whose lines carry a time; the others get time = record index.
constexpr bool carries_time(Format f) {
  return f == Format::DramSim3 || f == Format::Stl || f == Format::Rstl || f == Format::Csv ||
         f == Format::Store;
}

}  // namespace hmtt::tracefmt
