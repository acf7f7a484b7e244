// The store schema, version 1 (docs/store.md, "Schema"). Internal header.
#pragma once

namespace hmtt::store {

// PRAGMA application_id: "HMTT" as a big-endian 32-bit integer.
inline constexpr int kApplicationId = 0x484D5454;
// PRAGMA user_version: the schema version this code writes and reads.
inline constexpr int kSchemaVersion = 1;

inline constexpr const char* kSchemaSql = R"SQL(
CREATE TABLE meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE chunk(
  id          INTEGER PRIMARY KEY,
  refs        INTEGER NOT NULL,
  t_first     INTEGER NOT NULL,
  t_last      INTEGER NOT NULL,
  a_min       INTEGER NOT NULL,
  a_max       INTEGER NOT NULL,
  kind_mask   INTEGER NOT NULL,
  origin_mask INTEGER NOT NULL,
  n_read      INTEGER NOT NULL,
  n_write     INTEGER NOT NULL,
  n_ifetch    INTEGER NOT NULL,
  n_modify    INTEGER NOT NULL,
  plane_bytes INTEGER NOT NULL,
  blob_bytes  INTEGER NOT NULL,
  data        BLOB NOT NULL);
CREATE INDEX chunk_time ON chunk(t_first, t_last);
CREATE INDEX chunk_addr ON chunk(a_min, a_max);
CREATE TABLE link(
  board             INTEGER NOT NULL,
  link              INTEGER NOT NULL,
  frames            INTEGER NOT NULL,
  records           INTEGER NOT NULL,
  gap_frames        INTEGER NOT NULL,
  late_frames       INTEGER NOT NULL,
  duplicate_frames  INTEGER NOT NULL,
  bad_frames        INTEGER NOT NULL,
  fifo_lost_records INTEGER NOT NULL,
  PRIMARY KEY(board, link));
CREATE TABLE event(
  id    INTEGER PRIMARY KEY,
  time  INTEGER NOT NULL,
  type  INTEGER NOT NULL,
  board INTEGER NOT NULL,
  link  INTEGER NOT NULL,
  value INTEGER NOT NULL,
  write INTEGER NOT NULL,
  note  TEXT NOT NULL);
CREATE INDEX event_time ON event(time);
CREATE TABLE page_map(
  seq      INTEGER NOT NULL,
  time     INTEGER NOT NULL,
  pid      INTEGER NOT NULL,
  vpage    INTEGER NOT NULL,
  ppage    INTEGER NOT NULL,
  pte_addr INTEGER NOT NULL,
  unmap    INTEGER NOT NULL);
CREATE INDEX page_map_seq ON page_map(seq);
CREATE TABLE dma(
  seq       INTEGER NOT NULL,
  time      INTEGER NOT NULL,
  device    TEXT NOT NULL,
  phys      INTEGER NOT NULL,
  size      INTEGER NOT NULL,
  direction INTEGER NOT NULL,
  unmap     INTEGER NOT NULL);
CREATE INDEX dma_seq ON dma(seq);
CREATE TABLE process(
  pid        INTEGER NOT NULL,
  name       TEXT NOT NULL,
  first_time INTEGER NOT NULL,
  last_time  INTEGER NOT NULL);
CREATE TABLE report(
  id       INTEGER PRIMARY KEY,
  time     INTEGER NOT NULL,
  board    INTEGER NOT NULL,
  unit     INTEGER NOT NULL,
  interval INTEGER NOT NULL);
CREATE TABLE report_value(
  report INTEGER NOT NULL REFERENCES report(id),
  idx    INTEGER NOT NULL,
  value  INTEGER NOT NULL,
  PRIMARY KEY(report, idx));
CREATE TABLE profile(
  id     INTEGER PRIMARY KEY,
  method TEXT NOT NULL,
  name   TEXT NOT NULL,
  format TEXT NOT NULL,
  data   BLOB NOT NULL);

CREATE VIEW v_chunks AS
  SELECT id, refs, t_first, t_last,
         printf('0x%x', a_min) AS a_min, printf('0x%x', a_max) AS a_max,
         n_read, n_write, n_ifetch, n_modify,
         plane_bytes, blob_bytes,
         round(1.0 * blob_bytes / refs, 3) AS bytes_per_ref
  FROM chunk ORDER BY id;
CREATE VIEW v_summary AS
  SELECT count(*) AS chunks, ifnull(sum(refs), 0) AS refs,
         min(t_first) AS t_first, max(t_last) AS t_last,
         printf('0x%x', min(a_min)) AS a_min, printf('0x%x', max(a_max)) AS a_max,
         ifnull(sum(n_read), 0) AS n_read, ifnull(sum(n_write), 0) AS n_write,
         ifnull(sum(n_ifetch), 0) AS n_ifetch, ifnull(sum(n_modify), 0) AS n_modify,
         ifnull(sum(blob_bytes), 0) AS blob_bytes,
         round(1.0 * ifnull(sum(blob_bytes), 0) / max(ifnull(sum(refs), 0), 1), 3) AS bytes_per_ref
  FROM chunk;
CREATE VIEW v_links AS
  SELECT board, link, frames, records, gap_frames, late_frames, duplicate_frames, bad_frames,
         fifo_lost_records,
         round(100.0 * gap_frames / max(frames + gap_frames, 1), 4) AS gap_percent
  FROM link ORDER BY board, link;
CREATE VIEW v_events AS
  SELECT id, time,
         CASE type WHEN 0 THEN 'config-space' WHEN 1 THEN 'fifo-loss'
                   WHEN 2 THEN 'sequence-gap' WHEN 3 THEN 'tag' ELSE 'type-' || type END AS type,
         board, link, value, printf('0x%x', value) AS value_hex,
         CASE write WHEN 0 THEN 'r' ELSE 'w' END AS rw, note
  FROM event ORDER BY time, id;
CREATE VIEW v_event_counts AS
  SELECT type, count(*) AS events, sum(value) AS value_sum FROM v_events GROUP BY type ORDER BY type;
CREATE VIEW v_page_map AS
  SELECT seq, time, pid, printf('0x%x', vpage) AS vpage, printf('0x%x', ppage) AS ppage,
         printf('0x%x', pte_addr) AS pte_addr, CASE unmap WHEN 0 THEN 'map' ELSE 'unmap' END AS action
  FROM page_map ORDER BY seq;
CREATE VIEW v_dma AS
  SELECT seq, time, device, printf('0x%x', phys) AS phys, size,
         CASE direction WHEN 0 THEN 'bidirectional' WHEN 1 THEN 'to-device' WHEN 2 THEN 'from-device'
                        ELSE 'direction-' || direction END AS direction,
         CASE unmap WHEN 0 THEN 'map' ELSE 'unmap' END AS action
  FROM dma ORDER BY seq;
CREATE VIEW v_processes AS
  SELECT pid, name, first_time, last_time FROM process ORDER BY pid, first_time;
CREATE VIEW v_reports AS
  SELECT r.id, r.time, r.board, r.unit, r.interval, count(v.idx) AS n_values,
         group_concat(v.value, ' ') AS "values"
  FROM report r LEFT JOIN (SELECT * FROM report_value ORDER BY report, idx) v ON v.report = r.id
  GROUP BY r.id ORDER BY r.time, r.id;
CREATE VIEW v_profiles AS
  SELECT id, method, name, format, length(data) AS bytes FROM profile ORDER BY id;
)SQL";

}  // namespace hmtt::store
