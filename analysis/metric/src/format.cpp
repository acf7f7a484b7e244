#include "hmtt/metric/format.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

namespace hmtt::metric {

namespace {

// a*b and a+b that saturate at UINT64_MAX, for counts and spans of hostile files.
std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return UINT64_MAX;
  return r;
}
std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return UINT64_MAX;
  return r;
}

void put_u16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
std::uint64_t get_le(std::span<const std::uint8_t> b, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(b[at + static_cast<std::size_t>(i)]) << (8 * i);
  return v;
}
void put_string(std::vector<std::uint8_t>& out, const std::string& s) {
  put_varint(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

}  // namespace

std::uint64_t Descriptor::events() const {
  std::uint64_t n = 1;
  for (const auto& l : levels) n = sat_mul(n, l.count);
  return levels.empty() ? 0 : n;
}

std::uint64_t Descriptor::seq_span() const {
  std::uint64_t span = 0;
  for (const auto& l : levels) span = sat_add(span, sat_mul(l.count == 0 ? 0 : l.count - 1, l.seq));
  return span;
}

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(v));
}

void EventChecksum::add(const Reference& r, std::uint32_t point) {
  // Four 64-bit words per event; each step is a bijection of h, so any single
  // changed event changes the result.
  auto mix = [this](std::uint64_t w) {
    h_ = (h_ ^ w) * 0x9e3779b97f4a7c15ull;
    h_ ^= h_ >> 32;
  };
  mix(r.time);
  mix(r.address);
  mix(static_cast<std::uint64_t>(r.size) | static_cast<std::uint64_t>(r.kind) << 32 |
      static_cast<std::uint64_t>(r.origin) << 40 | static_cast<std::uint64_t>(r.source) << 48);
  mix(point);
}

// ---- FileByteSink ----

Result<std::unique_ptr<FileByteSink>> FileByteSink::create(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return make_error(path + ": cannot open for writing: " + std::strerror(errno));
  return std::unique_ptr<FileByteSink>(new FileByteSink(f, path));
}

FileByteSink::~FileByteSink() {
  if (f_) std::fclose(f_);
}

Status FileByteSink::write(std::span<const std::uint8_t> bytes) {
  if (!f_) return make_error(path_ + ": write after close");
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size())
    return make_error(path_ + ": write failed: " + std::strerror(errno));
  return Status::success();
}

Status FileByteSink::close() {
  if (!f_) return Status::success();
  int rc = std::fclose(f_);
  f_ = nullptr;
  if (rc != 0) return make_error(path_ + ": close failed: " + std::strerror(errno));
  return Status::success();
}

// ---- TraceWriter ----

Status TraceWriter::header(std::uint32_t window) {
  buf_.insert(buf_.end(), kMagic.begin(), kMagic.end());
  put_u16(buf_, kFormatVersion);
  put_u16(buf_, kHeaderSize);
  put_u32(buf_, window);
  put_u32(buf_, 0);                        // flags
  buf_.insert(buf_.end(), 12, 0);          // reserved
  return maybe_flush();
}

Status TraceWriter::point(std::uint32_t id, const ReferencePoint& p) {
  for (const auto* s : {&p.name, &p.file, &p.source_ref})
    if (s->size() > kMaxStringBytes) return make_error("reference point " + p.name.substr(0, 64) + ": string longer than 4096 bytes");
  buf_.push_back(static_cast<std::uint8_t>(RecordTag::Point));
  put_varint(buf_, id);
  put_string(buf_, p.name);
  put_string(buf_, p.file);
  put_varint(buf_, p.line);
  put_string(buf_, p.source_ref);
  return maybe_flush();
}

Status TraceWriter::key(std::uint32_t id, const EventKey& k) {
  buf_.push_back(static_cast<std::uint8_t>(RecordTag::Key));
  put_varint(buf_, id);
  put_varint(buf_, k.point);
  buf_.push_back(static_cast<std::uint8_t>(k.kind));
  buf_.push_back(static_cast<std::uint8_t>(k.origin));
  put_varint(buf_, k.source);
  put_varint(buf_, k.size);
  if (id != ctx_.iad_addr.size()) return make_error("metric writer: KEY " + std::to_string(id) + " out of order");
  ctx_.add_key();
  return maybe_flush();
}

Status TraceWriter::iad(const Iad& e) {
  if (e.key >= ctx_.iad_addr.size()) return make_error("metric writer: IAD names undefined key " + std::to_string(e.key));
  buf_.push_back(static_cast<std::uint8_t>(RecordTag::Iad));
  put_varint(buf_, e.seq - ctx_.iad_next_seq);
  put_varint(buf_, e.key);
  put_varint(buf_, zigzag(e.addr - ctx_.iad_addr[e.key]));
  put_varint(buf_, zigzag(e.time - (ctx_.iad_time + (e.seq - ctx_.iad_seq))));
  ctx_.iad_next_seq = e.seq + 1;
  ctx_.iad_seq = e.seq;
  ctx_.iad_time = e.time;
  ctx_.iad_addr[e.key] = e.addr;
  return maybe_flush();
}

Status TraceWriter::descriptor(const Descriptor& d) {
  if (d.key >= ctx_.desc_addr.size()) return make_error("metric writer: DESC names undefined key " + std::to_string(d.key));
  buf_.push_back(static_cast<std::uint8_t>(RecordTag::Desc));
  put_varint(buf_, d.key);
  put_varint(buf_, d.levels.size());
  put_varint(buf_, zigzag(d.start_seq - ctx_.desc_seq));
  put_varint(buf_, zigzag(d.start_addr - ctx_.desc_addr[d.key]));
  put_varint(buf_, zigzag(d.start_time - (ctx_.desc_time + (d.start_seq - ctx_.desc_seq))));
  for (const auto& l : d.levels) {
    put_varint(buf_, l.count);
    put_varint(buf_, zigzag(l.addr));
    put_varint(buf_, l.seq);
    put_varint(buf_, zigzag(l.time));
  }
  ctx_.desc_seq = d.start_seq;
  ctx_.desc_time = d.start_time;
  ctx_.desc_addr[d.key] = d.start_addr;
  return maybe_flush();
}

Status TraceWriter::end(std::uint64_t events, std::uint64_t checksum) {
  buf_.push_back(static_cast<std::uint8_t>(RecordTag::End));
  put_varint(buf_, events);
  put_u64(buf_, checksum);
  return flush();
}

Status TraceWriter::maybe_flush() {
  if (buf_.size() >= 65536) return flush();
  return Status::success();
}

Status TraceWriter::flush() {
  HMTT_TRY(sink_.write(buf_));
  written_ += buf_.size();
  buf_.clear();
  return Status::success();
}

// ---- RecordCursor ----

RecordCursor::RecordCursor(std::span<const std::uint8_t> file, std::string name)
    : file_(file), name_(std::move(name)) {}

Error RecordCursor::fail(std::size_t at, const std::string& what) const {
  return make_error(name_ + ": offset " + std::to_string(at) + ": " + what);
}

bool RecordCursor::varint(std::uint64_t& v) {
  v = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos_ >= file_.size()) return false;
    std::uint8_t b = file_[pos_++];
    if (i == 9 && b > 1) return false;  // more than 64 bits
    v |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) return true;
  }
  return false;
}

Result<Record> RecordCursor::next() {
  const std::size_t at = pos_;
  if (pos_ >= file_.size()) return fail(at, "expected a record, found the end of the file");
  const std::uint8_t tag = file_[pos_++];
  std::uint64_t v = 0;
  auto need = [&](const char* field) -> Error {
    return fail(at, std::string("record 0x") + (tag < 16 ? "0" : "") + [&] {
      char h[3];
      std::snprintf(h, sizeof h, "%x", tag);
      return std::string(h);
    }() + ": field " + field + " is truncated or longer than 10 bytes");
  };
  auto str = [&](std::string& s, const char* field) -> bool {
    if (!varint(v) || v > kMaxStringBytes || file_.size() - pos_ < v) return false;
    s.assign(reinterpret_cast<const char*>(file_.data() + pos_), static_cast<std::size_t>(v));
    pos_ += static_cast<std::size_t>(v);
    (void)field;
    return true;
  };
  switch (static_cast<RecordTag>(tag)) {
    case RecordTag::Point: {
      PointRecord r{};
      if (!varint(v)) return need("id");
      if (v > UINT32_MAX) return fail(at, "POINT: id " + std::to_string(v) + " exceeds 32 bits");
      r.id = static_cast<std::uint32_t>(v);
      if (!str(r.point.name, "name")) return fail(at, "POINT: name is truncated or longer than 4096 bytes");
      if (!str(r.point.file, "file")) return fail(at, "POINT: file is truncated or longer than 4096 bytes");
      if (!varint(v)) return need("line");
      if (v > UINT32_MAX) return fail(at, "POINT: line " + std::to_string(v) + " exceeds 32 bits");
      r.point.line = static_cast<std::uint32_t>(v);
      if (!str(r.point.source_ref, "source_ref"))
        return fail(at, "POINT: source_ref is truncated or longer than 4096 bytes");
      return Record{std::move(r)};
    }
    case RecordTag::Key: {
      KeyRecord r{};
      if (!varint(v)) return need("id");
      if (v > UINT32_MAX) return fail(at, "KEY: id exceeds 32 bits");
      r.id = static_cast<std::uint32_t>(v);
      if (!varint(v)) return need("point");
      if (v > UINT32_MAX) return fail(at, "KEY: point exceeds 32 bits");
      r.key.point = static_cast<std::uint32_t>(v);
      if (file_.size() - pos_ < 2) return need("kind/origin");
      std::uint8_t kind = file_[pos_++], origin = file_[pos_++];
      if (kind >= kKindCount) return fail(at, "KEY: kind " + std::to_string(kind) + " is not 0..3");
      if (origin > 3) return fail(at, "KEY: origin " + std::to_string(origin) + " is not 0..3");
      r.key.kind = static_cast<Kind>(kind);
      r.key.origin = static_cast<Origin>(origin);
      if (!varint(v)) return need("source");
      if (v > UINT16_MAX) return fail(at, "KEY: source " + std::to_string(v) + " exceeds 16 bits");
      r.key.source = static_cast<std::uint16_t>(v);
      if (!varint(v)) return need("size");
      if (v > UINT32_MAX) return fail(at, "KEY: size " + std::to_string(v) + " exceeds 32 bits");
      r.key.size = static_cast<std::uint32_t>(v);
      if (r.id != ctx_.iad_addr.size())
        return fail(at, "KEY: id " + std::to_string(r.id) + " out of order (expected " +
                            std::to_string(ctx_.iad_addr.size()) + ")");
      ctx_.add_key();
      return Record{r};
    }
    case RecordTag::Iad: {
      Iad e{};
      if (!varint(v)) return need("seq_gap");
      if (v >= UINT64_MAX - ctx_.iad_next_seq) return fail(at, "IAD: sequence id overflows 64 bits");
      e.seq = ctx_.iad_next_seq + v;
      if (!varint(v)) return need("key");
      if (v >= ctx_.iad_addr.size()) return fail(at, "IAD: key " + std::to_string(v) + " is not defined");
      e.key = static_cast<std::uint32_t>(v);
      if (!varint(v)) return need("addr_delta");
      e.addr = ctx_.iad_addr[e.key] + unzigzag(v);
      if (!varint(v)) return need("time_delta");
      e.time = ctx_.iad_time + (e.seq - ctx_.iad_seq) + unzigzag(v);
      ctx_.iad_next_seq = e.seq + 1;
      ctx_.iad_seq = e.seq;
      ctx_.iad_time = e.time;
      ctx_.iad_addr[e.key] = e.addr;
      return Record{e};
    }
    case RecordTag::Desc: {
      Descriptor d;
      if (!varint(v)) return need("key");
      if (v >= ctx_.desc_addr.size()) return fail(at, "DESC: key " + std::to_string(v) + " is not defined");
      d.key = static_cast<std::uint32_t>(v);
      if (!varint(v)) return need("depth");
      if (v < 1 || v > kMaxDepth) return fail(at, "DESC: depth " + std::to_string(v) + " is not 1..16");
      const std::size_t depth = static_cast<std::size_t>(v);
      if (!varint(v)) return need("seq_delta");
      d.start_seq = ctx_.desc_seq + unzigzag(v);
      if (!varint(v)) return need("addr_delta");
      d.start_addr = ctx_.desc_addr[d.key] + unzigzag(v);
      if (!varint(v)) return need("time_delta");
      d.start_time = ctx_.desc_time + (d.start_seq - ctx_.desc_seq) + unzigzag(v);
      ctx_.desc_seq = d.start_seq;
      ctx_.desc_time = d.start_time;
      ctx_.desc_addr[d.key] = d.start_addr;
      std::uint64_t span = 0;
      for (std::size_t l = 0; l < depth; ++l) {
        Step s;
        if (!varint(s.count)) return need("count");
        if (!varint(v)) return need("addr_step");
        s.addr = unzigzag(v);
        if (!varint(s.seq)) return need("seq_step");
        if (!varint(v)) return need("time_step");
        s.time = unzigzag(v);
        const std::string lvl = "DESC level " + std::to_string(l) + ": ";
        if (l == 0 && s.count < 1) return fail(at, lvl + "RSD length must be at least 1");
        if (l > 0 && s.count < 2) return fail(at, lvl + "PRSD count must be at least 2");
        if (s.count >= 2 && s.seq <= span)
          return fail(at, lvl + "sequence-id step " + std::to_string(s.seq) + " must exceed the span " +
                              std::to_string(span) + " of the levels inside it");
        span = sat_add(span, sat_mul(s.count - 1, s.seq));
        if (span == UINT64_MAX) return fail(at, lvl + "sequence span overflows 64 bits");
        d.levels.push_back(s);
      }
      if (sat_add(d.start_seq, span) == UINT64_MAX) return fail(at, "DESC: last sequence id overflows 64 bits");
      return Record{std::move(d)};
    }
    case RecordTag::End: {
      EndRecord r{};
      if (!varint(r.events)) return need("events");
      if (file_.size() - pos_ < 8) return need("checksum");
      r.checksum = get_le(file_, pos_, 8);
      pos_ += 8;
      return Record{r};
    }
  }
  return fail(at, "unknown record tag " + std::to_string(tag));
}

// ---- CompressedTrace ----

Result<CompressedTrace> CompressedTrace::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open: " + std::strerror(errno));
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return make_error(path + ": read failed");
  return parse(std::move(bytes), path);
}

Result<CompressedTrace> CompressedTrace::parse(std::vector<std::uint8_t> bytes, std::string name) {
  CompressedTrace t;
  t.name_ = std::move(name);
  t.bytes_ = std::move(bytes);
  const auto& b = t.bytes_;
  auto at = [&](std::size_t off, const std::string& what) {
    return make_error(t.name_ + ": offset " + std::to_string(off) + ": " + what);
  };
  if (b.size() < kHeaderSize) return at(0, "file is " + std::to_string(b.size()) + " bytes, shorter than the 32-byte header");
  if (!std::equal(kMagic.begin(), kMagic.end(), b.begin())) return at(0, "magic is not \"HMTTMTRC\" (not a METRIC compressed trace)");
  std::span<const std::uint8_t> s(b);
  if (get_le(s, 8, 2) != kFormatVersion) return at(8, "version " + std::to_string(get_le(s, 8, 2)) + " is not supported (expected 1)");
  if (get_le(s, 10, 2) != kHeaderSize) return at(10, "header size must be 32");
  t.window_ = static_cast<std::uint32_t>(get_le(s, 12, 4));
  if (get_le(s, 16, 4) != 0) return at(16, "flags must be zero");
  for (std::size_t i = 20; i < 32; ++i)
    if (b[i] != 0) return at(i, "reserved byte must be zero");

  RecordCursor cur(s, t.name_);
  bool ended = false;
  std::uint64_t desc_events = 0;
  std::uint64_t last_iad_seq = 0;
  while (!cur.at_end()) {
    const std::size_t off = cur.offset();
    if (ended) return at(off, "bytes after the END record");
    auto rec = cur.next();
    if (!rec) return rec.error();
    if (auto* p = std::get_if<PointRecord>(&*rec)) {
      if (p->id != t.points_.size())
        return at(off, "POINT: id " + std::to_string(p->id) + " out of order (expected " + std::to_string(t.points_.size()) + ")");
      t.points_.push_back(std::move(p->point));
    } else if (auto* k = std::get_if<KeyRecord>(&*rec)) {
      if (k->key.point >= t.points_.size())
        return at(off, "KEY: point " + std::to_string(k->key.point) + " is not defined");
      t.keys_.push_back(k->key);
    } else if (auto* e = std::get_if<Iad>(&*rec)) {
      last_iad_seq = e->seq;
      ++t.iads_;
    } else if (auto* d = std::get_if<Descriptor>(&*rec)) {
      desc_events = sat_add(desc_events, d->events());
      t.descriptors_.push_back(std::move(*d));
    } else {
      const auto& end = std::get<EndRecord>(*rec);
      t.events_ = end.events;
      t.checksum_ = end.checksum;
      ended = true;
    }
  }
  if (!ended) return at(b.size(), "the END record is missing (file truncated?)");
  if (sat_add(desc_events, t.iads_) != t.events_)
    return at(b.size(), "descriptors cover " + std::to_string(desc_events) + " events and IADs " +
                            std::to_string(t.iads_) + ", but END says " + std::to_string(t.events_));
  if (t.iads_ > 0 && last_iad_seq >= t.events_)
    return at(b.size(), "IAD at sequence id " + std::to_string(last_iad_seq) + " lies past the last event " +
                            std::to_string(t.events_));
  for (const auto& d : t.descriptors_)
    if (sat_add(d.start_seq, d.seq_span()) >= t.events_)
      return make_error(t.name_ + ": descriptor at sequence id " + std::to_string(d.start_seq) +
                        " reaches past the last event " + std::to_string(t.events_));
  std::stable_sort(t.descriptors_.begin(), t.descriptors_.end(),
                   [](const Descriptor& x, const Descriptor& y) { return x.start_seq < y.start_seq; });
  return t;
}

std::uint64_t CompressedTrace::prsd_count() const {
  return static_cast<std::uint64_t>(
      std::count_if(descriptors_.begin(), descriptors_.end(), [](const Descriptor& d) { return d.is_prsd(); }));
}

}  // namespace hmtt::metric
