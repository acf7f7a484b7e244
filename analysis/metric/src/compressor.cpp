#include "hmtt/metric/compressor.h"

#include <algorithm>

namespace hmtt::metric {

std::size_t TraceCompressor::KeyHash::operator()(const EventKey& k) const {
  std::uint64_t h = k.point;
  h = h * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(k.kind);
  h = h * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(k.origin);
  h = h * 0x9e3779b97f4a7c15ull + k.source;
  h = h * 0x9e3779b97f4a7c15ull + k.size;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

TraceCompressor::TraceCompressor(ByteSink& sink, CompressorOptions options) : writer_(sink), opt_(options) {}

Status TraceCompressor::begin() {
  if (begun_) return make_error("metric compressor: begin() called twice");
  if (opt_.window < 2 || opt_.window > 4096)
    return make_error("metric compressor: window " + std::to_string(opt_.window) + " is not 2..4096");
  if (opt_.fold_levels > kMaxDepth - 1)
    return make_error("metric compressor: fold levels " + std::to_string(opt_.fold_levels) + " is not 0..15");
  begun_ = true;
  pool_.assign(2 * static_cast<std::size_t>(opt_.window), PoolEntry{});
  active_.assign(opt_.window, Active{});
  free_active_.clear();
  for (std::uint32_t i = opt_.window; i-- > 0;) free_active_.push_back(i);
  slots_.assign(opt_.window, {});
  for (auto& s : slots_) s.reserve(4);
  return writer_.header(opt_.window);
}

Status TraceCompressor::define_point(std::uint32_t id, const ReferencePoint& point) {
  if (!begun_ || finished_) return make_error("metric compressor: define_point outside begin()..finish()");
  if (id != points_)
    return make_error("metric compressor: reference point " + std::to_string(id) + " defined out of order (expected " +
                      std::to_string(points_) + ")");
  HMTT_TRY(writer_.point(id, point));
  ++points_;
  return Status::success();
}

Result<std::uint32_t> TraceCompressor::intern(const EventKey& k) {
  auto it = key_ids_.find(k);
  if (it != key_ids_.end()) return it->second;
  if (k.point >= points_)
    return make_error("metric compressor: event " + std::to_string(seq_) + " names reference point " +
                      std::to_string(k.point) + ", which is not defined");
  if (keys_.size() >= opt_.max_keys)
    return make_error("metric compressor: event " + std::to_string(seq_) + " needs more than " +
                      std::to_string(opt_.max_keys) + " distinct keys (point, kind, size, origin, source)");
  const auto id = static_cast<std::uint32_t>(keys_.size());
  HMTT_TRY(writer_.key(id, k));
  key_ids_.emplace(k, id);
  keys_.push_back(k);
  folds_.emplace_back(opt_.fold_levels);
  return id;
}

Status TraceCompressor::append(const Reference& ref, std::uint32_t point) {
  if (!begun_ || finished_) return make_error("metric compressor: append outside begin()..finish()");
  auto key_r = intern(EventKey{point, ref.kind, ref.origin, ref.source, ref.size});
  if (!key_r) return key_r.error();
  const std::uint32_t key = *key_r;
  const std::uint64_t s = seq_++;
  checksum_.add(ref, point);
  const std::uint64_t w = opt_.window;
  const std::uint64_t P = pool_.size();

  // The event 2w back leaves the pool: nothing absorbed it, it is an IAD.
  PoolEntry& old = pool_[s % P];
  if (old.live) {
    HMTT_TRY(emit_iad(old));
    old.live = false;
  }

  // Stream table: RSDs expecting this sequence id extend or close.
  auto& slot = slots_[s % w];
  bool matched = false;
  for (std::size_t pos = 0; pos < slot.size(); ++pos) {
    const std::uint32_t idx = slot[pos];
    Active& a = active_[idx];
    if (!matched && a.key == key && a.next_addr == ref.address && a.next_time == ref.time && !completes_rsd(a)) {
      ++a.length;
      a.next_seq += a.seq_stride;
      a.next_addr += a.addr_stride;
      a.next_time += a.time_stride;
      slots_[a.next_seq % w].push_back(idx);
      matched = true;
    } else {
      HMTT_TRY(close_active(idx));
    }
  }
  slot.clear();
  if (matched) return Status::success();

  // Reservation pool: enter the event, look for a triple with equal differences.
  PoolEntry& cur = pool_[s % P];
  cur = PoolEntry{true, key, s, ref.address, ref.time};
  for (std::uint64_t i = 1; i < w && 2 * i <= s; ++i) {
    PoolEntry& e1 = pool_[(s - i) % P];
    if (!e1.live || e1.key != key || e1.seq != s - i) continue;
    PoolEntry& e2 = pool_[(s - 2 * i) % P];
    if (!e2.live || e2.key != key || e2.seq != s - 2 * i) continue;
    const std::uint64_t da = ref.address - e1.addr, dt = ref.time - e1.time;
    if (e1.addr - e2.addr != da || e1.time - e2.time != dt) continue;
    const std::uint32_t idx = free_active_.back();  // at most w-1 are active: see state_bytes()
    free_active_.pop_back();
    ++active_count_;
    stats_.peak_active_rsds = std::max(stats_.peak_active_rsds, active_count_);
    active_[idx] = Active{key, e2.seq, e2.addr, e2.time, 3, i, da, dt, s + i, ref.address + da, ref.time + dt};
    slots_[(s + i) % w].push_back(idx);
    e1.live = e2.live = cur.live = false;
    break;
  }
  return Status::success();
}

Status TraceCompressor::emit_iad(const PoolEntry& e) {
  ++stats_.iads;
  return writer_.iad(Iad{e.seq, e.key, e.addr, e.time});
}

Status TraceCompressor::close_active(std::uint32_t idx) {
  const Active& a = active_[idx];
  Descriptor d;
  d.key = a.key;
  d.start_seq = a.start_seq;
  d.start_addr = a.start_addr;
  d.start_time = a.start_time;
  d.levels.push_back(Step{a.length, a.addr_stride, a.seq_stride, a.time_stride});
  free_active_.push_back(idx);
  --active_count_;
  return fold(std::move(d), 0);
}

Descriptor TraceCompressor::close_group(const FoldGroup& g) {
  Descriptor out = g.first;
  if (g.count >= 2) out.levels.push_back(Step{g.count, g.shift.addr, g.shift.seq, g.shift.time});
  return out;
}

// True when the active RSD already has the shape of the RSD its key's level-0
// fold group repeats (at least twice already): the inner loop is complete, and the next event starts
// the next repetition even if it continues the stride (consecutive rows).
bool TraceCompressor::completes_rsd(const Active& a) const {
  if (opt_.fold_levels == 0) return false;
  const FoldGroup& g = folds_[a.key][0];
  return g.open && g.count >= 2 && g.first.levels.size() == 1 &&
         g.first.levels[0] == Step{a.length, a.addr_stride, a.seq_stride, a.time_stride};
}

// True when closing `g` now gives exactly the shape the group one level up
// repeats (at least twice already):
// the loop the parent repeats is complete, and the next descriptor belongs to
// the next repetition even if it happens to continue g's shift (e.g. the
// first rows of the next tile continue the last rows of this one).
bool TraceCompressor::completes_parent(const FoldGroup& g, std::uint32_t key, std::uint32_t level) const {
  if (level + 1 >= opt_.fold_levels) return false;
  const FoldGroup& up = folds_[key][level + 1];
  if (!up.open || up.count < 2) return false;
  const auto& ul = up.first.levels;
  const auto& gl = g.first.levels;
  return ul.size() == gl.size() + 1 && std::equal(gl.begin(), gl.end(), ul.begin()) &&
         ul.back() == Step{g.count, g.shift.addr, g.shift.seq, g.shift.time};
}

Status TraceCompressor::fold(Descriptor d, std::uint32_t level) {
  if (level >= opt_.fold_levels) return write_descriptor(d);
  FoldGroup& g = folds_[d.key][level];
  if (!g.open) {
    g.open = true;
    g.first = std::move(d);
    g.count = 1;
    return Status::success();
  }
  if (g.first.levels == d.levels && d.levels.size() < kMaxDepth && d.start_seq > g.first.start_seq) {
    if (g.count == 1) {
      const std::uint64_t ds = d.start_seq - g.first.start_seq;
      if (ds > g.first.seq_span()) {
        g.shift = Step{0, d.start_addr - g.first.start_addr, ds, d.start_time - g.first.start_time};
        g.count = 2;
        return Status::success();
      }
    } else if (d.start_seq == g.first.start_seq + g.count * g.shift.seq &&
               d.start_addr == g.first.start_addr + g.count * g.shift.addr &&
               d.start_time == g.first.start_time + g.count * g.shift.time && !completes_parent(g, d.key, level)) {
      ++g.count;
      return Status::success();
    }
  }
  Descriptor out = close_group(g);
  g.first = std::move(d);
  g.count = 1;
  return fold(std::move(out), level + 1);
}

Status TraceCompressor::write_descriptor(const Descriptor& d) {
  if (d.is_prsd()) ++stats_.prsds; else ++stats_.rsds;
  stats_.descriptor_events += d.events();
  return writer_.descriptor(d);
}

Result<CompressionStats> TraceCompressor::finish() {
  if (!begun_ || finished_) return make_error("metric compressor: finish outside begin()..finish()");
  for (auto& slot : slots_) {
    for (std::uint32_t idx : slot) HMTT_TRY(close_active(idx));
    slot.clear();
  }
  const std::uint64_t P = pool_.size();
  for (std::uint64_t s = seq_ > P ? seq_ - P : 0; s < seq_; ++s) {
    PoolEntry& e = pool_[s % P];
    if (e.live && e.seq == s) {
      HMTT_TRY(emit_iad(e));
      e.live = false;
    }
  }
  for (std::uint32_t k = 0; k < folds_.size(); ++k) {
    for (std::uint32_t l = 0; l < opt_.fold_levels; ++l) {
      FoldGroup& g = folds_[k][l];
      if (!g.open) continue;
      Descriptor out = close_group(g);
      g.open = false;
      g.first = Descriptor{};
      HMTT_TRY(fold(std::move(out), l + 1));
    }
  }
  stats_.state_bytes = state_bytes();
  HMTT_TRY(writer_.end(seq_, checksum_.value()));
  finished_ = true;
  stats_.events = seq_;
  stats_.file_bytes = writer_.bytes_written();
  stats_.keys = keys_.size();
  stats_.points = points_;
  return stats_;
}

std::uint64_t TraceCompressor::state_bytes() const {
  std::uint64_t b = pool_.capacity() * sizeof(PoolEntry) + active_.capacity() * sizeof(Active) +
                    free_active_.capacity() * sizeof(std::uint32_t);
  for (const auto& s : slots_) b += sizeof(s) + s.capacity() * sizeof(std::uint32_t);
  // keys: the table, the hash map (node + bucket) and one fold stack each
  b += keys_.capacity() * sizeof(EventKey) + key_ids_.size() * (sizeof(EventKey) + 4 + 16) +
       key_ids_.bucket_count() * sizeof(void*);
  // a fold group holds one descriptor of at most kMaxDepth levels
  for (const auto& stack : folds_) b += stack.size() * (sizeof(FoldGroup) + kMaxDepth * sizeof(Step));
  return b;
}

Result<CompressionStats> compress(PointedSource& source, ByteSink& sink, CompressorOptions options) {
  TraceCompressor c(sink, options);
  HMTT_TRY(c.begin());
  std::vector<Reference> refs(4096);
  std::vector<std::uint32_t> points(4096);
  std::uint32_t defined = 0;
  for (;;) {
    auto n = source.read_pointed(refs, points);
    if (!n) return n.error();
    if (*n == 0) break;
    const auto& table = source.points();
    for (; defined < table.size(); ++defined) HMTT_TRY(c.define_point(defined, table[defined]));
    for (std::size_t i = 0; i < *n; ++i) HMTT_TRY(c.append(refs[i], points[i]));
  }
  const auto& table = source.points();
  for (; defined < table.size(); ++defined) HMTT_TRY(c.define_point(defined, table[defined]));
  return c.finish();
}

}  // namespace hmtt::metric
