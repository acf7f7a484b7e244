#include "hmtt/vbench/dma_model.h"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>

#include "hmtt/tracefmt/reader.h"
#include "hmtt/tracefmt/writer.h"

namespace hmtt::vbench {

namespace {

constexpr std::uint64_t kLine = 64;

}  // namespace

Result<DmaModelStats> model_dma(const std::string& trace_in, const driver::KernelLog& log, std::uint32_t nsync,
                                std::uint64_t cfg_base, std::uint64_t cfg_size, const std::string& trace_out) {
  if (nsync == 0) return make_error("DMA model: nsync is 0");
  DmaModelStats st;
  // Every record made one sync load: per sync index, the records in seq order.
  std::vector<std::pair<std::uint64_t, const driver::DmaRecord*>> seqs;
  for (const auto& r : log.tags) seqs.emplace_back(r.header.seq, nullptr);
  for (const auto& r : log.sched) seqs.emplace_back(r.header.seq, nullptr);
  for (const auto& r : log.syscalls) seqs.emplace_back(r.header.seq, nullptr);
  for (const auto& r : log.page_map) seqs.emplace_back(r.header.seq, nullptr);
  for (const auto& r : log.user) seqs.emplace_back(r.header.seq, nullptr);
  for (const auto& r : log.dma) seqs.emplace_back(r.header.seq, &r);
  std::sort(seqs.begin(), seqs.end());
  std::unordered_map<std::uint32_t, std::deque<const driver::DmaRecord*>> by_index;
  for (const auto& [seq, dma] : seqs) by_index[driver::sync_tag_index(seq, nsync)].push_back(dma);
  std::map<std::string, std::uint16_t> device_ids;

  auto in = tracefmt::open_trace(trace_in);
  if (!in.ok()) return in.error();
  tracefmt::WriterOptions wo;
  wo.overwrite = true;
  auto out = tracefmt::open_writer(trace_out, tracefmt::Format::Csv, wo);
  if (!out.ok()) return out.error();

  std::vector<Reference> batch(4096), next;
  auto lines = [&](const driver::DmaRecord& d, std::uint64_t time, Kind kind) {
    auto [it, added] = device_ids.emplace(d.device, static_cast<std::uint16_t>(device_ids.size() + 1));
    if (added) st.devices.push_back(d.device);
    if (d.size == 0) return;
    for (std::uint64_t a = d.phys / kLine * kLine; a < d.phys + d.size; a += kLine) {
      Reference r;
      r.time = time;
      r.address = a;
      r.size = kLine;
      r.kind = kind;
      r.origin = Origin::DmaModelled;
      r.source = it->second;
      next.push_back(r);
      ++(kind == Kind::Read ? st.reads : st.writes);
    }
    (kind == Kind::Read ? st.read_bytes : st.write_bytes) += d.size;
  };
  for (;;) {
    auto n = (*in)->read(batch);
    if (!n.ok()) return n.error();
    if (*n == 0) break;
    next.clear();
    for (std::size_t i = 0; i < *n; ++i) {
      const Reference& r = batch[i];
      const bool sync = r.kind != Kind::Write && r.address - cfg_base < cfg_size;
      const driver::DmaRecord* d = nullptr;
      if (sync) {
        auto q = by_index.find(static_cast<std::uint32_t>((r.address - cfg_base) / kLine));
        if (q != by_index.end() && !q->second.empty()) {
          d = q->second.front();
          q->second.pop_front();
        }
      }
      const bool from_dev = d && (d->direction == driver::DmaDirection::FromDevice ||
                                  d->direction == driver::DmaDirection::Bidirectional);
      const bool to_dev = d && (d->direction == driver::DmaDirection::ToDevice ||
                                d->direction == driver::DmaDirection::Bidirectional);
      if (d && d->op == driver::DmaOp::Unmap) {
        ++st.unmaps;
        if (from_dev) lines(*d, r.time, Kind::Write);  // the device wrote it before the unmap
      }
      next.push_back(r);
      if (d && d->op == driver::DmaOp::Map) {
        ++st.maps;
        if (to_dev) lines(*d, r.time, Kind::Read);  // the device reads it after the map
      }
    }
    HMTT_TRY((*out)->write(next));
  }
  HMTT_TRY((*out)->finish());
  for (const auto& [index, q] : by_index)
    for (const auto* d : q) st.unmatched += d != nullptr;
  return st;
}

}  // namespace hmtt::vbench
