// The trace store: one SQLite file per capture (docs/store.md).
//
// References live in time-ordered chunks (columnar, delta/zigzag encoded,
// LZ4-compressed BLOBs with their time and address ranges indexed), never one
// row per reference. Side tables hold links and their loss counts, events and
// tags, the kernel module's page-map and DMA logs, processes, board reports,
// profiles and capture metadata.
//
// This header is the contract other parts code against. StoreWriter keeps
// bounded memory and commits chunk by chunk (WAL), so a writer killed at any
// moment leaves a file that opens and holds every committed chunk.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hmtt/reference.h"
#include "hmtt/result.h"
#include "hmtt/stream.h"

namespace hmtt::store {

// Capture-wide facts, stored in the `meta` table as key/value text.
struct CaptureInfo {
  std::uint64_t tick_ps = 0;        // picoseconds per time tick; 0 = time is a record index
  std::string source;               // "board", "import:lackey", "sim", "vbench", ...
  std::string ddr_standard;         // "DDR2-400", ... (empty if not a board capture)
  std::string address_map;          // address-map description (board captures)
  std::string board_config;         // board configuration (JSON text)
  std::string description;          // free text
};

// Per-link receive accounting (one row per board/link).
struct LinkStats {
  std::uint32_t board = 0;
  std::uint32_t link = 0;
  std::uint64_t frames = 0;          // frames accepted
  std::uint64_t records = 0;         // records decoded from accepted frames
  std::uint64_t gap_frames = 0;      // frames missing by sequence number
  std::uint64_t late_frames = 0;     // frames that arrived after a later one (reordered)
  std::uint64_t duplicate_frames = 0;
  std::uint64_t bad_frames = 0;      // rejected: checksum, length, version, field
  std::uint64_t fifo_lost_records = 0;  // sum of LOSS records (dropped by the board FIFO)
};

enum class EventType : std::uint8_t {
  ConfigSpace = 0,  // an EVENT record: value = config-space index (docs/wire-format.md 3.2)
  FifoLoss = 1,     // a LOSS record: value = records dropped
  SequenceGap = 2,  // frames missing on a link: value = frames missing
  Tag = 3,          // a user/software tag (e.g. from an importer or `hmtt logs`)
};

struct Event {
  std::uint64_t time = 0;
  EventType type = EventType::ConfigSpace;
  std::uint32_t board = 0;
  std::uint32_t link = 0;
  std::uint64_t value = 0;
  bool write = false;
  std::string note;  // optional text
};

// The kernel module's page-map log: <seq, pid, virt page, phys page, pte addr>.
struct PageMapEntry {
  std::uint64_t seq = 0;
  std::uint64_t time = 0;  // trace time after alignment by sync tags; 0 if unaligned
  std::uint32_t pid = 0;
  std::uint64_t vpage = 0;
  std::uint64_t ppage = 0;
  std::uint64_t pte_addr = 0;
  bool unmap = false;
};

// The kernel module's DMA log: <seq, device, phys start, size, direction, map/unmap>.
struct DmaEntry {
  std::uint64_t seq = 0;
  std::uint64_t time = 0;
  std::string device;
  std::uint64_t phys = 0;
  std::uint64_t size = 0;
  std::uint8_t direction = 0;  // 0 bidirectional, 1 to device, 2 from device (as DMA_* in Linux)
  bool unmap = false;
};

struct Process {
  std::uint32_t pid = 0;
  std::string name;
  std::uint64_t first_time = 0;
  std::uint64_t last_time = 0;
};

// A board statistic or reuse-distance report (wire REPORT + values).
struct Report {
  std::uint64_t time = 0;
  std::uint32_t board = 0;
  std::uint32_t unit = 0;
  std::uint32_t interval = 0;
  std::vector<std::uint64_t> values;
};

// A stored profile (Chameleon signature, PSnAP profile, ...): text or binary.
struct Profile {
  std::string method;
  std::string name;
  std::string format;  // "json", "binary"
  std::string data;
};

struct WriterOptions {
  std::uint32_t chunk_refs = 1u << 17;  // references per chunk (1 .. 2^24); 2^17 keeps a decoded chunk in L3
  bool overwrite = false;               // replace an existing file
  int lz4_acceleration = 1;             // LZ4_compress_fast acceleration (1 = default; higher = faster, larger)
  bool background = true;               // compress and commit chunks on a writer thread
  std::uint32_t page_size = 4096;       // SQLite page size of the new file (512 .. 65536, a power of two)
  // Wait for the disk at every WAL checkpoint (SQLite synchronous=NORMAL; docs/store.md,
  // "Durability"), so that not even a power cut or a kernel crash can corrupt the file. false:
  // synchronous=OFF, no fdatasync at all: a killed process still leaves every committed chunk
  // readable, but a power cut or a kernel crash before the kernel has written the file back may
  // lose or corrupt it.
  bool sync = true;
  // With `background`: a WAL checkpoint on a thread of its own every `checkpoint_bytes` of new WAL
  // (at least 64 KiB), the WAL held under twice that (docs/store.md, "Durability").
  std::uint32_t checkpoint_bytes = 4u << 20;
};

// Writes one capture. References must arrive in non-decreasing time order (an
// out-of-order reference fails the write() or finish() that commits its chunk,
// naming the chunk and the reference). Destroying an unfinished writer calls
// finish(); a writer that is killed leaves meta 'finished' = 0 and every chunk
// committed so far.
class StoreWriter final : public ReferenceSink {
 public:
  static Result<std::unique_ptr<StoreWriter>> create(const std::string& path, const CaptureInfo& info,
                                                     const WriterOptions& options = {});
  // Opens an existing store to add side tables only (page-map and DMA logs, tags, processes,
  // reports, profiles, meta), e.g. `hmtt logs --store` after a capture. Its references are
  // final: write() is an error. Each add_* call is one transaction; a foreign or damaged
  // file is an error naming it.
  static Result<std::unique_ptr<StoreWriter>> annotate(const std::string& path);
  ~StoreWriter() override;
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  // Buffers the references and commits full chunks. References out of time order (against each
  // other and everything written before) or with a kind or origin out of range fail the call, which
  // then takes none of `refs`; the error names the chunk and the index they would have had.
  Status write(std::span<const Reference> refs) override;
  Status finish() override;                                  // commits the partial chunk and side tables

  // Side tables. Each call is one transaction. While the writer's threads run
  // (WriterOptions::background, until finish()), a call copies its rows and queues them for the
  // committer thread, after the chunks already queued, and returns without waiting for the file
  // (unless 16 calls are queued already); calls land in call order. A queued call that fails
  // stops the writer as a failed chunk does: the next call, the next full chunk and finish()
  // return its error. Otherwise (no background threads, after finish(), a store opened by
  // annotate()) the call commits before it returns.
  Status add_events(std::span<const Event> events);
  Status add_page_map(std::span<const PageMapEntry> entries);
  Status add_dma(std::span<const DmaEntry> entries);
  Status add_processes(std::span<const Process> processes);
  Status add_reports(std::span<const Report> reports);
  Status add_profile(const Profile& profile);
  Status set_link_stats(std::span<const LinkStats> links);  // replaces rows of those links
  Status set_meta(const std::string& key, const std::string& value);

  // Chunks and references committed to the file so far (a killed writer's file holds at least these).
  std::uint64_t committed_chunks() const;
  std::uint64_t committed_references() const;

  struct Impl;
 private:
  explicit StoreWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct Filter {
  std::uint64_t time_begin = 0;
  std::uint64_t time_end = UINT64_MAX;  // exclusive
  std::uint64_t addr_begin = 0;
  std::uint64_t addr_end = UINT64_MAX;  // exclusive
  unsigned kind_mask = 0xF;             // bit (1 << Kind)
};

struct Summary {
  std::uint64_t references = 0;
  std::uint64_t by_kind[kKindCount] = {};
  std::uint64_t first_time = 0;
  std::uint64_t last_time = 0;
  std::uint64_t min_address = 0;
  std::uint64_t max_address = 0;
  std::uint64_t chunks = 0;
  std::uint64_t events = 0;
  std::uint64_t compressed_bytes = 0;  // sum of chunk BLOB sizes
  std::uint64_t page_map_entries = 0;
  std::uint64_t dma_entries = 0;
  std::uint64_t processes = 0;
  std::uint64_t reports = 0;
  std::uint64_t profiles = 0;
  bool finished = false;  // the writer reached finish(); false for an interrupted capture
};

// A store's chunk bytes by column (`hmtt info --planes`): where the compressed bytes go. Per column
// of the chunk format (docs/store.md, "The chunk BLOB"): its planes over all chunks, their bytes
// uncompressed and stored, and how many planes each encoding stored (raw, LZ4, packed).
struct ColumnBytes {
  std::uint64_t planes = 0;
  std::uint64_t raw_bytes = 0;
  std::uint64_t stored_bytes = 0;
  std::uint64_t by_encoding[3] = {};
};
struct PlaneCensus {
  std::uint64_t chunks = 0;
  std::uint64_t references = 0;
  std::uint64_t blob_bytes = 0;   // whole BLOBs: the columns' stored bytes plus headers, tables, checksums
  ColumnBytes columns[5] = {};    // TimeDelta, Residual, KindOrigin, Size, Source
};

class StoreReader {
 public:
  // Opens read-only; a truncated or foreign file is an error naming the file and what is wrong.
  static Result<std::unique_ptr<StoreReader>> open(const std::string& path);
  ~StoreReader();
  StoreReader(const StoreReader&) = delete;
  StoreReader& operator=(const StoreReader&) = delete;

  const CaptureInfo& info() const;
  Result<Summary> summary() const;
  // A pull stream of the references that pass `filter`, in time order. It opens its own
  // read-only connection, so it may outlive the reader; chunks the filter excludes by their
  // indexed ranges are never read. A damaged chunk ends the stream with an error naming the
  // file, the chunk id and what is wrong.
  Result<std::unique_ptr<ReferenceSource>> references(const Filter& filter = {}) const;
  // Every chunk BLOB read, checked (as the stream checks it) and its plane table summed; a damaged
  // chunk is an error naming the file and the chunk id. `progress`, if given, sees the census so far
  // after each chunk (a store of gigabytes takes minutes).
  Result<PlaneCensus> planes(const std::function<void(const PlaneCensus&)>& progress = {}) const;
  Result<std::vector<Event>> events() const;
  Result<std::vector<LinkStats>> links() const;
  Result<std::vector<PageMapEntry>> page_map() const;
  Result<std::vector<DmaEntry>> dma() const;
  Result<std::vector<Process>> processes() const;
  Result<std::vector<Report>> reports() const;
  Result<std::vector<Profile>> profiles() const;
  Result<std::string> meta(const std::string& key) const;

  struct Impl;
 private:
  explicit StoreReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// True if the file starts like an hmtt store (SQLite header and the hmtt schema).
bool looks_like_store(const std::string& path);

}  // namespace hmtt::store
