#include "hmtt/metric/expander.h"

#include <algorithm>

namespace hmtt::metric {

namespace {
bool heap_greater(const std::pair<std::uint64_t, std::uint32_t>& a, const std::pair<std::uint64_t, std::uint32_t>& b) {
  return a.first > b.first;
}
}  // namespace

bool ExpandedSource::Generator::advance() {
  const auto& lv = d->levels;
  for (std::size_t l = 0; l < lv.size(); ++l) {
    if (index[l] + 1 < lv[l].count) {
      ++index[l];
      base_seq[l] += lv[l].seq;
      base_addr[l] += lv[l].addr;
      base_time[l] += lv[l].time;
      for (std::size_t m = 0; m < l; ++m) {
        index[m] = 0;
        base_seq[m] = base_seq[l];
        base_addr[m] = base_addr[l];
        base_time[m] = base_time[l];
      }
      seq = base_seq[0];
      addr = base_addr[0];
      time = base_time[0];
      return true;
    }
  }
  return false;
}

ExpandedSource::ExpandedSource(std::shared_ptr<const CompressedTrace> trace)
    : trace_(std::move(trace)), iad_cursor_(trace_->bytes(), trace_->name()) {}

Error ExpandedSource::fail(const std::string& what) const {
  return make_error(trace_->name() + ": " + what);
}

Status ExpandedSource::next_iad() {
  have_iad_ = false;
  while (!iad_cursor_.at_end()) {
    auto rec = iad_cursor_.next();
    if (!rec) return rec.error();
    if (auto* e = std::get_if<Iad>(&*rec)) {
      iad_ = *e;
      have_iad_ = true;
      return Status::success();
    }
    if (std::holds_alternative<EndRecord>(*rec)) break;
  }
  return Status::success();
}

void ExpandedSource::push_heap(std::uint32_t g) {
  heap_.emplace_back(gens_[g].seq, g);
  std::push_heap(heap_.begin(), heap_.end(), heap_greater);
}

std::uint32_t ExpandedSource::pop_heap() {
  std::pop_heap(heap_.begin(), heap_.end(), heap_greater);
  auto g = heap_.back().second;
  heap_.pop_back();
  return g;
}

Result<std::size_t> ExpandedSource::read(std::span<Reference> out) {
  if (point_buf_.size() < out.size()) point_buf_.resize(out.size());
  return read_pointed(out, std::span<std::uint32_t>(point_buf_.data(), out.size()));
}

Result<std::size_t> ExpandedSource::read_pointed(std::span<Reference> refs, std::span<std::uint32_t> points) {
  if (failed_) return error_;
  if (done_) return std::size_t{0};
  auto stop = [this](Error e) -> Result<std::size_t> {
    failed_ = true;
    error_ = e;
    return e;
  };
  if (next_seq_ == 0 && next_desc_ == 0 && !have_iad_) {
    auto st = next_iad();
    if (!st) return stop(st.error());
  }
  const auto& descs = trace_->descriptors();
  const auto& keys = trace_->keys();
  const std::uint64_t total = trace_->events();
  const std::size_t n = std::min(refs.size(), points.size());
  std::size_t produced = 0;
  while (produced < n && next_seq_ < total) {
    while (next_desc_ < descs.size() && descs[next_desc_].start_seq <= next_seq_) {
      const Descriptor& d = descs[next_desc_++];
      if (d.start_seq < next_seq_)
        return stop(fail("descriptor starting at sequence id " + std::to_string(d.start_seq) +
                         " overlaps events already produced"));
      std::uint32_t g;
      if (!free_gens_.empty()) {
        g = free_gens_.back();
        free_gens_.pop_back();
      } else {
        g = static_cast<std::uint32_t>(gens_.size());
        gens_.emplace_back();
      }
      Generator& gen = gens_[g];
      const std::size_t depth = d.levels.size();
      gen.d = &d;
      gen.seq = d.start_seq;
      gen.addr = d.start_addr;
      gen.time = d.start_time;
      gen.index.assign(depth, 0);
      gen.base_seq.assign(depth, d.start_seq);
      gen.base_addr.assign(depth, d.start_addr);
      gen.base_time.assign(depth, d.start_time);
      push_heap(g);
      peak_open_ = std::max(peak_open_, heap_.size());
    }
    const bool from_desc = !heap_.empty() && heap_.front().first == next_seq_;
    const bool from_iad = have_iad_ && iad_.seq == next_seq_;
    if (from_desc && from_iad)
      return stop(fail("sequence id " + std::to_string(next_seq_) + " is covered by both a descriptor and an IAD"));
    std::uint32_t key;
    std::uint64_t addr, time;
    if (from_desc) {
      const std::uint32_t g = pop_heap();
      if (!heap_.empty() && heap_.front().first <= next_seq_)
        return stop(fail("sequence id " + std::to_string(heap_.front().first) + " is covered by two descriptors"));
      Generator& gen = gens_[g];
      key = gen.d->key;
      addr = gen.addr;
      time = gen.time;
      if (gen.advance()) push_heap(g); else free_gens_.push_back(g);
    } else if (from_iad) {
      key = iad_.key;
      addr = iad_.addr;
      time = iad_.time;
      auto st = next_iad();
      if (!st) return stop(st.error());
    } else {
      return stop(fail("sequence id " + std::to_string(next_seq_) + " is covered by no descriptor and no IAD"));
    }
    const EventKey& k = keys[key];
    refs[produced] = Reference{time, addr, k.size, k.kind, k.origin, k.source};
    points[produced] = k.point;
    checksum_.add(refs[produced], k.point);
    ++produced;
    ++next_seq_;
  }
  if (next_seq_ == total && !done_) {
    if (have_iad_) return stop(fail("IAD at sequence id " + std::to_string(iad_.seq) + " lies past the last event"));
    if (checksum_.value() != trace_->checksum())
      return stop(fail("event checksum mismatch: the expanded trace differs from the one that was compressed"));
    if (produced == 0) done_ = true;
  }
  return produced;
}

}  // namespace hmtt::metric
