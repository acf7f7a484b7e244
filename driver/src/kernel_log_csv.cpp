#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "hmtt/driver/kernel_log.h"

namespace hmtt::driver {
namespace {

class CsvTable {
 public:
  CsvTable(const std::filesystem::path& path, const char* columns, std::uint32_t nsync)
      : path_(path), out_(path), nsync_(nsync) {
    out_ << "seq,cpu,time_ns,sync_index," << columns << "\n";
  }
  std::ofstream& row(const LogHeader& h) {
    out_ << h.seq << ',' << h.cpu << ',' << h.time_ns << ',';
    if (nsync_) out_ << sync_tag_index(h.seq, nsync_);
    out_ << ',';
    return out_;
  }
  Status close() {
    out_.close();
    if (!out_) return make_error(path_.string() + ": write failed: " + std::strerror(errno));
    return Status::success();
  }

 private:
  std::filesystem::path path_;
  std::ofstream out_;
  std::uint32_t nsync_;
};

}  // namespace

std::uint32_t nsync_for_region(std::uint64_t region_bytes) {
  const std::uint64_t events = region_bytes > 0x1000 ? (region_bytes - 0x1000) / 0x40 : 0;
  return events > kAppEvents ? static_cast<std::uint32_t>(events - kAppEvents) : 0;
}

Status write_kernel_log_csv(const KernelLog& log, const std::filesystem::path& dir, std::uint32_t nsync) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(dir.string() + ": " + ec.message());

  CsvTable pm(dir / "page_map.csv", "pid,tgid,op,vpage,ppage,pte_addr,fault_flags", nsync);
  for (const auto& r : log.page_map)
    pm.row(r.header) << r.pid << ',' << r.tgid << ',' << (r.op == 1 ? "map" : r.op == 2 ? "unmap" : "migrate") << ',' << r.vpage << ','
                     << r.ppage << ',' << r.pte_addr << ',' << r.fault_flags << '\n';
  HMTT_TRY(pm.close());

  CsvTable dma(dir / "dma.csv", "device,op,direction,phys,dma_addr,size", nsync);
  for (const auto& r : log.dma)
    dma.row(r.header) << r.device << ',' << (r.op == DmaOp::Map ? "map" : "unmap") << ',' << to_string(r.direction)
                      << ',' << r.phys << ',' << r.dma_addr << ',' << r.size << '\n';
  HMTT_TRY(dma.close());

  CsvTable ev(dir / "events.csv", "kind,event,value,pid", nsync);
  for (const auto& r : log.tags)
    ev.row(r.header) << (r.kind == TagKind::Begin ? "begin" : r.kind == TagKind::End ? "end" : "user") << ','
                     << r.event << ',' << r.value << ',' << r.pid << '\n';
  HMTT_TRY(ev.close());

  CsvTable sc(dir / "sched.csv", "prev_pid,prev_tgid,next_pid,next_tgid,prev_state", nsync);
  for (const auto& r : log.sched)
    sc.row(r.header) << r.prev_pid << ',' << r.prev_tgid << ',' << r.next_pid << ',' << r.next_tgid << ','
                     << r.prev_state << '\n';
  HMTT_TRY(sc.close());

  CsvTable sy(dir / "syscalls.csv", "pid,tgid,dir,nr,ret,arg0,arg1,arg2", nsync);
  for (const auto& r : log.syscalls)
    sy.row(r.header) << r.pid << ',' << r.tgid << ',' << (r.exit ? "exit" : "enter") << ',' << r.nr << ','
                     << r.ret << ',' << r.args[0] << ',' << r.args[1] << ',' << r.args[2] << '\n';
  HMTT_TRY(sy.close());

  CsvTable us(dir / "user.csv", "bytes", nsync);
  for (const auto& r : log.user) us.row(r.header) << r.payload.size() << '\n';
  return us.close();
}

}  // namespace hmtt::driver
