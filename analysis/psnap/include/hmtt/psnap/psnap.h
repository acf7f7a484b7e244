// PSnAP (Olschanowsky, Tikir, Carrington, Snavely): synthetic address streams
// from memory profiles. See docs/psnap.md.
//
// A *stream profile* is a hierarchy:
//   stream profile  the order in which loop streams ran (run-length encoded),
//   loop stream     the references of one loop (here: of one cluster of
//                   windows, see below); its regions and its pattern buffer,
//   region stream   the references of one contiguous memory region (addresses
//                   within `region_distance` bytes of the region's range):
//                   stride histogram, stride-order graph, working set, count.
//
// Program structure: PSnAP attributes each reference to a loop by static
// binary analysis. In HMTT the program says so itself: code regions (a
// store's I-Code events, HMTT_EVENT(k) starting region k, or a region map)
// are loops, one loop per region id, and each entry to a region is one of its
// loop's instances (cut into windows of at most `window` references, each an
// instance). References outside every region, and every reference of a trace
// without regions, go through the fallback segmentation: it cuts the trace into windows of `window` references and
// gives two windows the same loop when the 64-byte code lines (or 4 KB pages)
// they touch overlap by at least `loop_similarity` (Jaccard index). A loop's regions then aggregate
// every window of that loop, so the profile grows with the number of distinct
// phases (code complexity), not with the run time. A window's regions only
// set the loop regions' ranges: each loop region's strides, graph, returns
// and runs are measured on its own stream (the window's references replayed
// into the loop regions they joined).
//
// Replay concatenates loop streams in the recorded order; within a loop the
// pattern buffer (the region order of the loop's first `pattern_buffer`
// runs, cycled) interleaves the regions, and each region continues its
// own stride walk (Markov chain over the stride-order graph, wrapping inside
// the region's range).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hmtt/analysis/code_regions.h"
#include "hmtt/analysis/profiler.h"
#include "hmtt/reference.h"
#include "hmtt/result.h"
#include "hmtt/stream.h"

namespace hmtt::psnap {

// Stride bins (PSnAP section 2): 0, +2^0 .. +2^8, -2^0 .. -2^8, random
// (|stride| > 2^8). A stride s with 2^k <= |s| < 2^(k+1) falls in bin +-2^k.
inline constexpr int kStrideBins = 20;
inline constexpr int kRandomBin = kStrideBins - 1;
int stride_bin(std::int64_t stride);
std::string_view stride_bin_label(int bin);
// The bin of a label ("+8", "-256", "0", "random"), or -1.
int stride_bin_of_label(std::string_view label);

// What makes two windows the same loop (fallback segmentation): the 64-byte
// lines of their instruction fetches (a window without any falls back to its
// pages), or the 4 KB pages they touch.
enum class LoopSignature : std::uint8_t { Pages = 0, Code = 1 };

// Where a region's returns to a line (jump_reuse, move_reuse) are counted.
// Window: within one window, as each window's regions were profiled alone
// (profiles before version 3); a line's first touch in a window is a far jump.
// Loop: across all the windows of the region's loop, so only a line's first
// touch ever is a far jump, and replay returns to a line whose last touch was
// that long ago (an hmtt extension; docs/psnap.md).
enum class ReturnScope : std::uint8_t { Window = 0, Loop = 1 };
// "window" / "loop": the knob's value, and the JSON profile's `returns`.
constexpr std::string_view return_scope_name(ReturnScope r) { return r == ReturnScope::Loop ? "loop" : "window"; }
// The scope named `name`, or false for any other text.
constexpr bool parse_return_scope(std::string_view name, ReturnScope& out) {
  if (name != "loop" && name != "window") return false;
  out = name == "loop" ? ReturnScope::Loop : ReturnScope::Window;
  return true;
}

// The largest `window`: the profiler keeps a window's references (32 bytes
// each) until the window closes, so this bounds that buffer at 128 MiB.
inline constexpr std::uint64_t kMaxWindow = std::uint64_t{1} << 22;

struct PsnapKnobs {
  std::uint64_t region_distance = 256;  // bytes: an address this close to a region joins it
  // Region runs kept per loop. PSnAP (footnote 4) keeps 1 K; 64 K keeps the
  // whole first instance of a loop at the default window, so fewer regions are
  // live at once in replay (docs/accuracy.md: L2 mean 7.82 -> 6.70 %).
  std::uint64_t pattern_buffer = 65536;
  std::uint64_t window = 65536;         // fallback segmentation: references per loop instance
  double loop_similarity = 0.5;         // Jaccard index of signatures for two windows to share a loop
  LoopSignature loop_signature = LoopSignature::Code;
  std::uint64_t merge_below = 4;        // regions with fewer accesses per window are merged, unless
                                        // inside a loop region of 16 KiB or more (stream_profiler.cpp)
  // Bytes: new regions in arithmetic progression (three in turn, a constant stride s with
  // region_distance < |s| <= lattice_stride: a table read down a column) join one region, whose
  // strides between the rows become its sweep (an hmtt extension; docs/accuracy.md: bzip2's L2
  // error 10.6 -> 6.0 %). 0 (or at most region_distance): off, as profiles made before it.
  std::uint64_t lattice_stride = 1024;
  ReturnScope returns = ReturnScope::Loop;
  bool operator==(const PsnapKnobs&) const = default;
};

// A sweep of a region: a random stride (|stride| > 256) taken `count` times, in `runs` runs of
// consecutive ones (1 .. count), `long_runs` of them two strides or longer (0 .. the smaller of
// runs and count - runs), the rest single. Replay starts a run with the odds of `runs`, makes it
// long with the odds of `long_runs` among them, and draws its length around the long runs' mean.
// `alternations` (0 .. runs) of the runs came two strides after the same sweep with a stride
// within +-256 between (+4, +1020, +4, +1020: two columns read down together); replay takes the
// sweep again after one other stride with the odds alternations / count.
struct Sweep {
  std::int64_t stride = 0;
  std::uint64_t count = 0;
  std::uint64_t runs = 0;
  std::uint64_t long_runs = 0;
  std::uint64_t alternations = 0;
  bool operator==(const Sweep&) const = default;
};
// Sweeps kept per region: the second of bzip2's column reads alternates +4 and +1020 steps
// with the first's +1024 (docs/accuracy.md).
inline constexpr std::size_t kMaxSweeps = 2;

// One memory region stream.
struct RegionProfile {
  std::uint64_t base = 0;       // lowest byte address seen
  std::uint64_t last = 0;       // highest byte address seen (inclusive)
  std::uint64_t first = 0;      // first address seen (replay starts here)
  std::uint64_t count = 0;      // accesses
  std::uint64_t runs = 0;       // times the stream entered this region (count / runs = mean run length)
  std::uint64_t working_set = 0;  // distinct 64-byte lines touched
  std::uint64_t merged = 0;     // >0: the merge of this many pointer-chasing regions
  bool code = false;            // instruction fetches (never shares a region with data)
  std::array<std::uint64_t, 4> kinds{};  // per hmtt::Kind
  std::vector<std::pair<std::uint32_t, std::uint64_t>> sizes;  // access size -> count, most common first
  std::array<std::uint64_t, kStrideBins> strides{};  // stride histogram
  std::array<std::int64_t, kStrideBins> exact{};     // the most common exact stride of each bin
  // Where random strides land (an hmtt extension of PSnAP's "random" bin):
  // jump_reuse[k] counts random strides whose target line the region last
  // touched d of its own accesses earlier, 2^k <= d < 2^(k+1) (k = 0 .. 16);
  // the rest are "far" and land on a working-set line drawn uniformly.
  static constexpr int kJumpBins = 17;
  std::array<std::uint64_t, kJumpBins> jump_reuse{};
  // The sweeps: the most common exact strides among the random ones (|stride| > 256; an hmtt
  // extension), each kept when it is at least a quarter of them: a table read down a column, a
  // lattice walked in turn (docs/psnap.md). jump_reuse counts the other random strides only.
  std::vector<Sweep> sweeps;
  // The random strides that were one of the sweeps.
  std::uint64_t swept() const;
  // The same for strides within +-256 that move to another line (`moves` of
  // them). Replay steers its own share of such returns, per distance bin, to
  // the recorded one, so a stride walk does not diffuse over the whole range.
  std::uint64_t moves = 0;
  std::array<std::uint64_t, kJumpBins> move_reuse{};
  // The region's lifetime in its loop: the first and the last loop instance
  // (0-based) that touched it. Replay spreads the region's accesses over
  // those instances only, so a loop walking through fresh data keeps doing so.
  std::uint64_t first_instance = 0;
  std::uint64_t last_instance = 0;
  // Footprint growth (an hmtt extension), kept for a data region of at least
  // kGrowthMinCount accesses, else empty: growth[j] is when (j + 1) / 8 of its
  // working set had been touched, as a share of its lifetime (its first to its
  // last access, in trace time) in units of 1 / kGrowthScale; non-decreasing.
  // Replay holds a long walk's first touches back to it (a table that fills as
  // the input arrives, gzip's window: docs/psnap.md, *Replay*).
  static constexpr std::size_t kGrowthPoints = 8;
  static constexpr std::uint32_t kGrowthScale = 65536;
  static constexpr std::uint64_t kGrowthMinCount = std::uint64_t{1} << 19;
  std::vector<std::uint32_t> growth;
  // Activity over the lifetime (an hmtt extension, binary version 8), kept where a
  // data region's accesses are not spread evenly over its loop instances, else empty:
  // activity[j] is where in its lifetime (first_instance to last_instance + 1, in
  // units of 1 / kGrowthScale; instance i's accesses fill [i, i + 1) in order) the
  // (j + 1)-th eighth of its accesses was reached; non-decreasing, the last one the
  // lifetime's end or less. Replay gives each instance the accesses the curve puts
  // there, instead of an even share: a block of xz's binary-tree array is busy for
  // the few instances after the input reaches it, then touched rarely up to the end
  // (docs/psnap.md, *Replay*).
  static constexpr std::size_t kActivityPoints = 8;
  // Kept for data regions of this many accesses or more whose lifetime spans two
  // instances or more, where a point of the curve is this far (as a share of the
  // lifetime) from even.
  static constexpr std::uint64_t kActivityMinCount = 256;
  static constexpr double kActivityUneven = 0.125;
  std::vector<std::uint32_t> activity;
  // Where a merged region's lines lie (an hmtt extension, binary version 7):
  // for each 64 KiB block of the address space holding any of them, in
  // ascending order, (block number = address >> 16, the region's distinct
  // 64-byte lines in it); the lines add up to working_set. Empty for other
  // regions. A merged region stands for scattered regions far apart (xz's:
  // 16-79 MB ranges, a few MB used), and replay lays its lines out in these
  // blocks instead of evenly over the range (docs/psnap.md, *Replay*).
  static constexpr int kFootprintBlockShift = 16;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> footprint;
  // When each footprint block opened: the first touch of any of its lines, as a share of the
  // region's lifetime in units of 1 / kGrowthScale (an hmtt extension, binary version 9; empty
  // in older profiles). Replay takes a merged region's first touches only from blocks already
  // open, so an array the program fills in order is read in that order.
  std::vector<std::uint32_t> footprint_open;
  // The 64-byte lines of `block` inside [base, last] (0 outside the range).
  std::uint64_t lines_in_block(std::uint64_t block) const;
  // Stride-order graph: transitions[from * kStrideBins + to] = how often a
  // stride of bin `to` followed one of bin `from` in this region.
  std::vector<std::uint64_t> transitions = std::vector<std::uint64_t>(kStrideBins * kStrideBins, 0);
  bool operator==(const RegionProfile&) const = default;
};

struct LoopProfile {
  // The code region whose entries were this loop's instances (an I-Code event
  // id, or a region map's id), or kOtherRegionId for a loop of the fallback
  // segmentation. A profile with any such loop replays every loop's instances
  // at their mean length (references / instances), else at `window`.
  std::uint32_t code_region = analysis::kOtherRegionId;
  std::uint64_t instances = 0;   // windows attributed to this loop
  std::uint64_t references = 0;  // over all instances
  // Pattern buffer: the loop's first `pattern_buffer` runs of accesses to one
  // region, as (region index, run length) in the order met.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> pattern;
  std::vector<RegionProfile> regions;
  bool operator==(const LoopProfile&) const = default;
};

struct StreamProfile {
  PsnapKnobs knobs;
  std::uint64_t references = 0;
  std::vector<LoopProfile> loops;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> order;  // (loop, consecutive windows)

  std::uint64_t region_count() const;
  // True when code regions delimited the loops' instances (some loop has a code_region).
  bool code_delimited() const;
  // PSnAP equation (1): (1000 LoopCount + (80 + 3610) RegionCount) / (1000 + 80 + 3610).
  double complexity() const;
  bool operator==(const StreamProfile&) const = default;
};

// Builds a StreamProfile in one pass over a reference stream.
class StreamProfiler {
 public:
  // `code_regions` (sorted by t0, disjoint: analysis::parse_regions or
  // regions_from_icode_events) are loops; the rest is segmented.
  explicit StreamProfiler(const PsnapKnobs& knobs, std::vector<analysis::CodeRegion> code_regions = {});
  ~StreamProfiler();
  StreamProfiler(const StreamProfiler&) = delete;
  StreamProfiler& operator=(const StreamProfiler&) = delete;
  void access(const Reference& ref);
  // Closes the last window and returns the profile.
  StreamProfile finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The profile as JSON (the method's fields; the caller adds the header), and back.
analysis::Json to_json(const StreamProfile& p);
// Every error names the field, e.g. "loops[2].regions[5].strides[1]: ...".
Result<StreamProfile> from_json(const analysis::Json& j);

// The compact profile, the default file format (docs/psnap.md, "The binary
// profile"): the 20-byte header (magic "HMTTPSNP", version, compression, body
// layout, body length, CRC-32 of the body), then the body of LEB128 varints,
// stored, deflate- or LZMA2-compressed. It is lossless: from_binary(to_binary(p)) == p.
inline constexpr std::string_view kBinaryMagic = "HMTTPSNP";
enum class BinaryCompression { Stored, Deflate, Lzma };
// How the body's fields are laid out: in the order a reader meets them (the
// documented worked example), or in columns, each field of every region side
// by side (the default: 6-14 % smaller under LZMA2, docs/accuracy.md).
enum class BodyLayout { Interleaved, Columns };
std::string to_binary(const StreamProfile& p, BinaryCompression compression = BinaryCompression::Lzma,
                      BodyLayout layout = BodyLayout::Columns);
// Every error names the byte and the field: "profile: byte 16: body CRC-32
// mismatch ...", "profile: body byte 812 (.loops[0].regions[3].runs): more runs than accesses".
Result<StreamProfile> from_binary(std::string_view data);
bool is_binary_profile(std::string_view data);
// The body alone (no header, no compression, no CRC): for tests and fuzzing.
// encode_body writes the current version's (9); decode_body reads `version`'s
// (1 has no lattice_stride, which then reads as 0; 1 and 2 have no return
// scope, which then reads as ReturnScope::Window; 1 .. 3 hold one sweep at most, its
// strides each a run of its own; 1 .. 4 have no loop code regions, which then read as
// kOtherRegionId; 1 .. 5 no growth curves, 1 .. 6 no footprint blocks, 1 .. 7 no
// activity curves, 1 .. 8 no footprint open times: their flags are reserved bits there).
std::string encode_body(const StreamProfile& p, BodyLayout layout = BodyLayout::Interleaved);
Result<StreamProfile> decode_body(std::string_view body, int version = 9, BodyLayout layout = BodyLayout::Interleaved);

// The synthetic stream of a profile: `length` references (0 = the profile's count).
std::unique_ptr<ReferenceSource> make_replay(StreamProfile profile, std::uint64_t length, std::uint64_t seed);

}  // namespace hmtt::psnap

namespace hmtt::analysis {
// `hmtt profile --method psnap` (listed in apps/hmtt/profilers.def).
std::unique_ptr<Profiler> make_psnap_profiler();
}  // namespace hmtt::analysis
