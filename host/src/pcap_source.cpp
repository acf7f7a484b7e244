#include "hmtt/host/pcap_source.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <pcap/pcap.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "hmtt/host/frame_decoder.h"
#include "hmtt/host/link_merger.h"

namespace hmtt::host {

struct PcapSource::Impl {
  pcap_t* pcap = nullptr;
  bool live = false;
  int datalink = DLT_EN10MB;
  bool nanos = false;
  PortRange ports;
  bool check_udp_checksum = true;
  std::string path;
  bool rereadable = false;  // a regular file, or open_buffer's bytes: streams_ahead may read it again
  std::span<const std::uint8_t> buffer;  // open_buffer's bytes
  std::vector<std::uint8_t> scratch;  // cooked captures rewritten as Ethernet
  std::vector<char> file_buffer;       // the capture file's stdio buffer (outlives pcap: freed after ~Impl)
  std::string pending_error;
  ~Impl() {
    if (pcap) pcap_close(pcap);
  }
};

namespace {

constexpr std::size_t kFileBufferBytes = 256 * 1024;

bool supported(int dlt) { return dlt == DLT_EN10MB || dlt == DLT_LINUX_SLL || dlt == DLT_LINUX_SLL2; }

std::uint64_t time_of(const pcap_pkthdr& h, bool nanos) {
  const std::uint64_t sub = static_cast<std::uint64_t>(h.ts.tv_usec);
  return static_cast<std::uint64_t>(h.ts.tv_sec) * 1000000000ull + (nanos ? sub : sub * 1000);
}

// Rewrites a Linux cooked capture as an Ethernet frame (zero MACs, same protocol).
std::span<const std::uint8_t> as_ethernet(int dlt, std::span<const std::uint8_t> p, std::vector<std::uint8_t>& out) {
  if (dlt == DLT_EN10MB) return p;
  std::size_t hdr = dlt == DLT_LINUX_SLL ? 16 : 20;
  std::size_t proto_at = dlt == DLT_LINUX_SLL ? 14 : 0;
  if (p.size() < hdr) return {};
  out.assign(14, 0);
  out[12] = p[proto_at];
  out[13] = p[proto_at + 1];
  out.insert(out.end(), p.begin() + static_cast<std::ptrdiff_t>(hdr), p.end());
  return out;
}

}  // namespace

PcapSource::PcapSource(std::unique_ptr<Impl> impl, std::string name) : impl_(std::move(impl)), name_(std::move(name)) {}
PcapSource::~PcapSource() = default;

Result<std::unique_ptr<PcapSource>> PcapSource::open_file(const std::string& path, const PortRange& ports,
                                                          bool check_udp_checksum) {
  char err[PCAP_ERRBUF_SIZE] = {};
  auto impl = std::make_unique<Impl>();
  if (path == "-") {
    impl->pcap = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, err);
  } else {
    // libpcap reads a file as two fread calls per packet; with stdio's default buffer (the file system's
    // block, 4 KiB) that is a read system call every three frames. 256 KiB makes them rare: about 5 %
    // less CPU for an ingest (docs/benchmarks.md, "Receiver", stop 21).
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return make_error(path + ": cannot open: " + std::strerror(errno));
    // Only a regular file can be read twice (streams_ahead): not a pipe or a FIFO.
    struct stat st {};
    impl->rereadable = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    impl->file_buffer.resize(kFileBufferBytes);
    std::setvbuf(f, impl->file_buffer.data(), _IOFBF, impl->file_buffer.size());
    posix_fadvise(fileno(f), 0, 0, POSIX_FADV_SEQUENTIAL);
    impl->pcap = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, err);
    if (!impl->pcap) std::fclose(f);  // pcap_close closes it once pcap has it
  }
  if (!impl->pcap) return make_error(path + ": " + err);
  impl->nanos = pcap_get_tstamp_precision(impl->pcap) == PCAP_TSTAMP_PRECISION_NANO;
  impl->datalink = pcap_datalink(impl->pcap);
  if (!supported(impl->datalink))
    return make_error(path + ": link type " + std::to_string(impl->datalink) +
                      " is not Ethernet or Linux cooked capture");
  impl->ports = ports;
  impl->check_udp_checksum = check_udp_checksum;
  impl->path = path;
  return std::unique_ptr<PcapSource>(new PcapSource(std::move(impl), path));
}

Result<std::unique_ptr<PcapSource>> PcapSource::open_buffer(std::span<const std::uint8_t> bytes,
                                                            const std::string& name, const PortRange& ports) {
  if (bytes.empty()) return make_error(name + ": empty capture");
  FILE* f = fmemopen(const_cast<std::uint8_t*>(bytes.data()), bytes.size(), "rb");
  if (!f) return make_error(name + ": fmemopen failed");
  char err[PCAP_ERRBUF_SIZE] = {};
  auto impl = std::make_unique<Impl>();
  impl->pcap = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, err);
  if (!impl->pcap) {
    std::fclose(f);
    return make_error(name + ": " + err);
  }
  impl->nanos = pcap_get_tstamp_precision(impl->pcap) == PCAP_TSTAMP_PRECISION_NANO;
  impl->datalink = pcap_datalink(impl->pcap);
  if (!supported(impl->datalink))
    return make_error(name + ": link type " + std::to_string(impl->datalink) + " is not Ethernet or Linux cooked capture");
  impl->ports = ports;
  impl->path = name;
  impl->buffer = bytes;
  impl->rereadable = true;
  return std::unique_ptr<PcapSource>(new PcapSource(std::move(impl), name));
}

Result<std::unique_ptr<PcapSource>> PcapSource::open_live(const std::string& iface, const PortRange& ports,
                                                          int buffer_bytes) {
  char err[PCAP_ERRBUF_SIZE] = {};
  auto impl = std::make_unique<Impl>();
  impl->pcap = pcap_create(iface.c_str(), err);
  if (!impl->pcap) return make_error("interface " + iface + ": " + err);
  pcap_set_snaplen(impl->pcap, 65535);
  pcap_set_promisc(impl->pcap, 1);
  pcap_set_timeout(impl->pcap, 10);
  pcap_set_buffer_size(impl->pcap, buffer_bytes);
  pcap_set_tstamp_precision(impl->pcap, PCAP_TSTAMP_PRECISION_NANO);
  const int rc = pcap_activate(impl->pcap);
  if (rc < 0) return make_error("interface " + iface + ": " + pcap_geterr(impl->pcap));
  impl->nanos = pcap_get_tstamp_precision(impl->pcap) == PCAP_TSTAMP_PRECISION_NANO;
  impl->datalink = pcap_datalink(impl->pcap);
  if (!supported(impl->datalink))
    return make_error("interface " + iface + ": link type " + std::to_string(impl->datalink) +
                      " is not Ethernet or Linux cooked capture");
  // Only UDP to the HMTT ports reaches user space.
  const std::string filter = "udp dst portrange " + std::to_string(ports.base) + "-" +
                             std::to_string(ports.base + ports.count - 1);
  bpf_program prog{};
  if (pcap_compile(impl->pcap, &prog, filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) == 0) {
    pcap_setfilter(impl->pcap, &prog);
    pcap_freecode(&prog);
  }
  if (pcap_setnonblock(impl->pcap, 1, err) != 0) return make_error("interface " + iface + ": " + err);
  impl->live = true;
  impl->check_udp_checksum = false;
  impl->ports = ports;
  impl->path = iface;
  return std::unique_ptr<PcapSource>(new PcapSource(std::move(impl), "iface:" + iface));
}

std::optional<std::vector<std::uint16_t>> PcapSource::streams_ahead(std::size_t refs) {
  const Impl& s = *impl_;
  if (s.live || !s.rereadable) return std::nullopt;
  FILE* f = s.buffer.empty() ? std::fopen(s.path.c_str(), "rb")
                             : fmemopen(const_cast<std::uint8_t*>(s.buffer.data()), s.buffer.size(), "rb");
  if (!f) return std::nullopt;
  std::vector<char> file_buffer(s.buffer.empty() ? kFileBufferBytes : 0);
  if (!file_buffer.empty()) std::setvbuf(f, file_buffer.data(), _IOFBF, file_buffer.size());
  char err[PCAP_ERRBUF_SIZE] = {};
  pcap_t* pcap = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, err);
  if (!pcap) {
    std::fclose(f);
    return std::nullopt;
  }
  // One frame's room and side records, reused: nothing the size of the window is kept but the
  // set of (port, sequence) seen.
  FrameBatch batch;
  wire::DecodedFrame side;
  std::vector<Reference> room(wire::kMaxRecords);
  std::vector<std::uint8_t> scratch;
  std::unordered_set<std::uint64_t> seen;
  std::vector<std::uint16_t> streams;
  std::size_t taken = 0;
  bool ok = true;
  while (taken <= refs) {
    pcap_pkthdr* h = nullptr;
    const u_char* data = nullptr;
    const int rc = pcap_next_ex(pcap, &h, &data);
    if (rc == PCAP_ERROR_BREAK) break;  // the end: every stream of the file is known
    if (rc != 1) {
      ok = false;  // damaged: read() reports it; the receiver holds its horizon as without this
      break;
    }
    batch.clear();
    auto p = as_ethernet(s.datalink, std::span<const std::uint8_t>(data, h->caplen), scratch);
    // The same checks as read(), UDP checksum included: a frame counted here is one the receiver
    // takes, so the window covers at least the references the merge would have held.
    if (!classify_ethernet(p, s.ports, 0, batch, s.check_udp_checksum) || batch.frames.empty()) continue;
    const RawFrame& raw = batch.frames.front();
    std::size_t n = 0;
    if (raw.rejected || !raw.crc_ok || !decode_link_frame(batch.payload(raw), side, room, n, true).ok()) continue;
    if (!seen.insert(std::uint64_t{raw.port} << 32 | side.header.sequence).second) continue;
    taken += n;
    const std::uint16_t id = LinkMerger::stream_id(side.header.board, side.header.link);
    if (std::find(streams.begin(), streams.end(), id) == streams.end()) streams.push_back(id);
  }
  pcap_close(pcap);  // closes f
  if (!ok) return std::nullopt;
  std::sort(streams.begin(), streams.end());
  return streams;
}

Result<ReadState> PcapSource::read(FrameBatch& batch, std::size_t max_frames, std::chrono::milliseconds timeout) {
  Impl& s = *impl_;
  if (!s.pending_error.empty()) return make_error(s.pending_error);
  std::size_t got = 0;
  bool waited = false;
  while (got < max_frames) {
    pcap_pkthdr* h = nullptr;
    const u_char* data = nullptr;
    const int rc = pcap_next_ex(s.pcap, &h, &data);
    if (rc == 1) {
      ++counters_.packets;
      counters_.bytes += h->caplen;
      auto p = as_ethernet(s.datalink, std::span<const std::uint8_t>(data, h->caplen), s.scratch);
      if (classify_ethernet(p, s.ports, time_of(*h, s.nanos), batch, s.check_udp_checksum))
        ++got;
      else
        ++counters_.non_hmtt;
      continue;
    }
    if (rc == PCAP_ERROR_BREAK) return got > 0 ? ReadState::Frames : ReadState::End;  // end of file
    if (rc == 0) {  // live: nothing ready
      if (got > 0 || waited) break;
      pollfd pfd{pcap_get_selectable_fd(s.pcap), POLLIN, 0};
      poll(&pfd, 1, static_cast<int>(timeout.count()));
      waited = true;
      continue;
    }
    // A damaged file: hand out the frames read so far first, then the error.
    s.pending_error = s.path + ": packet " + std::to_string(counters_.packets + 1) + ": " + pcap_geterr(s.pcap);
    if (got > 0) return ReadState::Frames;
    return make_error(s.pending_error);
  }
  if (s.live) {
    pcap_stat st{};
    if (pcap_stats(s.pcap, &st) == 0) counters_.kernel_drops = st.ps_drop;
  }
  return got > 0 ? ReadState::Frames : ReadState::Idle;
}

}  // namespace hmtt::host
