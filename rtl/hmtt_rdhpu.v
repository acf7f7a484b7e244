// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_rdhpu: Reuse Distance & Hot Pages Unit (docs/board.md section 11).
//
// Behaviour. Page numbers (acc_page_i, one per cycle at most) go through the
// systolic LRU stack hmtt_rdhpu_stack (Depth entries). Per interval of
// interval_i cycles the unit counts
//   - a log-spaced reuse-distance histogram: bin 0 = distance 0, bin b
//     (1 <= b <= DistW) = distances 2^(b-1) .. 2^b-1, bin DistW+1 = beyond
//     Depth (misses, first accesses included); NB = DistW+2 bins (9 for 128);
//   - the hot pages: a K-entry Space-Saving table (Metwally et al., 2005). An
//     access to a page in the table increments its count. Otherwise the entry
//     with the smallest count (empty entries count 0; on a tie, the lowest
//     index) is replaced: page = the new page, count = min+1, err = min. So a
//     count over-estimates the page's accesses by at most err, err = 0 means
//     the count is exact, every page with more than N/K accesses in the
//     interval (N accesses) is in the table, and with at most K distinct pages
//     the table is exact. Pages appear in table order, not sorted.
// An access belongs to the interval in which its result leaves the stack,
// i.e. an access presented in cycle t counts in the interval holding cycle
// t+Depth. The first interval starts at reset; an interval ends in the cycle
// where the cycle count within it reaches interval_i (0 acts as 1). At that end
// the counters (including that cycle's access) are copied to a report buffer and
// cleared, and the interval number (from 0) advances.
//
// Report. The buffer goes out as 40-bit records (docs/wire-format.md 3.2):
// REPORT (unit 1, NV = NB + 3K values, interval number mod 2^16), then NV
// REPORT_VALUE records: the NB bins, then per table entry j = 0..K-1 its page,
// count and err (an empty entry: 0, 0, 0); values zero-extended to 36 bits.
// rec_valid_o/rec_o hold until rec_ready_i. Which input wins: if an interval
// ends while the previous report is still going out, the new report is lost
// (lost_o counts them; the interval number still advances).
//
// Timing: results leave the stack Depth cycles after their access; a report's
// first record is valid in the cycle after its interval ends and one record
// leaves per cycle with rec_ready_i high. On the board: hmtt_board_top with
// WithRdhpu = 1 (docs/board.md 13).
`default_nettype none

// A top of its own in its bench and lint run and in a board built without it (WithRdhpu = 0).
/* verilator lint_off MULTITOP */
module hmtt_rdhpu #(
  /* verilator lint_on MULTITOP */
  parameter integer Depth    = 128,  // LRU stack entries, >= 2
  parameter integer TagWidth = 24,   // page-number bits, <= 36
  parameter integer K        = 8,    // hot-page table entries, >= 1
  parameter integer CntW     = 32    // counter bits, <= 36 (an interval has < 2^32 cycles)
) (
  input  wire                clk_i,
  input  wire                rst_ni,
  // Settings
  input  wire [31:0]         interval_i,   // cycles per interval
  // Accesses
  input  wire                acc_valid_i,
  input  wire [TagWidth-1:0] acc_page_i,
  // Report records
  output wire                rec_valid_o,
  output wire [39:0]         rec_o,
  input  wire                rec_ready_i,
  // Status
  output wire [31:0]         lost_o        // reports lost (interval ended while sending)
);

  localparam integer DistW = (Depth > 2) ? $clog2(Depth) : 1;
  localparam integer NB    = DistW + 2;
  localparam integer NV    = NB + 3 * K;
  localparam integer T     = TagWidth;
  localparam integer IdxW  = $clog2(NV + 1);
  localparam [15:0]  NumValues = NV[15:0];
  localparam [IdxW-1:0] LastIdx = NV[IdxW-1:0];

  // ---------------------------------------------------------------- stack
  wire            res_valid, res_hit;
  wire [T-1:0]    res_tag;
  wire [DistW-1:0] res_dist;
  wire            res_evict_valid;
  wire [T-1:0]    res_evict_tag;

  hmtt_rdhpu_stack #(
    .Depth   (Depth),
    .TagWidth(TagWidth)
  ) u_stack (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .req_valid_i      (acc_valid_i),
    .req_tag_i        (acc_page_i),
    .res_valid_o      (res_valid),
    .res_tag_o        (res_tag),
    .res_hit_o        (res_hit),
    .res_dist_o       (res_dist),
    .res_evict_valid_o(res_evict_valid),
    .res_evict_tag_o  (res_evict_tag)
  );

  // The evicted page is not used here.
  wire unused_evict = res_evict_valid ^ (^res_evict_tag);

  // ---------------------------------------------------------------- interval
  reg  [31:0] cyc_q, lost_q;
  reg  [15:0] interval_q;
  wire        iv_end = ({1'b0, cyc_q} + 33'd1) >= {1'b0, interval_i};
  wire [31:0] cyc_d  = iv_end ? 32'd0 : cyc_q + 32'd1;

  // ---------------------------------------------------------------- histogram
  reg [NB*CntW-1:0] hist_q;
  reg [NB*CntW-1:0] hist_upd;  // with this cycle's result
  reg [NB-1:0]      bin_hot;   // one-hot bin of this cycle's result
  integer b;
  always @* begin
    bin_hot = {NB{1'b0}};
    if (res_valid) begin
      if (!res_hit) begin
        bin_hot[NB-1] = 1'b1;
      end else begin
        bin_hot[0] = (res_dist == {DistW{1'b0}});
        for (b = 0; b < DistW; b = b + 1) begin
          // Highest set bit b: distances 2^b .. 2^(b+1)-1 go to bin b+1.
          bin_hot[b+1] = res_dist[b] && ((res_dist >> (b + 1)) == {DistW{1'b0}});
        end
      end
    end
    for (b = 0; b < NB; b = b + 1) begin
      hist_upd[b*CntW +: CntW] = hist_q[b*CntW +: CntW] + {{(CntW-1){1'b0}}, bin_hot[b]};
    end
  end

  // ---------------------------------------------------------------- hot pages
  reg  [K-1:0]      hv_q;
  reg  [K*T-1:0]    hpage_q;
  reg  [K*CntW-1:0] hcnt_q, herr_q;
  reg  [K-1:0]      hv_upd;
  reg  [K*T-1:0]    hpage_upd;
  reg  [K*CntW-1:0] hcnt_upd, herr_upd;
  reg  [K-1:0]      hmatch;
  reg  [CntW-1:0]   min_cnt;
  reg  [31:0]       min_idx;
  integer j;
  always @* begin
    // Which entry holds the page; else the first entry with the smallest count.
    min_cnt = hcnt_q[CntW-1:0];
    min_idx = 32'd0;
    for (j = 0; j < K; j = j + 1) begin
      hmatch[j] = hv_q[j] && (hpage_q[j*T +: T] == res_tag);
      if (hcnt_q[j*CntW +: CntW] < min_cnt) begin
        min_cnt = hcnt_q[j*CntW +: CntW];
        min_idx = j;
      end
    end
    hv_upd    = hv_q;
    hpage_upd = hpage_q;
    hcnt_upd  = hcnt_q;
    herr_upd  = herr_q;
    if (res_valid) begin
      for (j = 0; j < K; j = j + 1) begin
        if (hmatch[j]) begin
          hcnt_upd[j*CntW +: CntW] = hcnt_q[j*CntW +: CntW] + {{(CntW-1){1'b0}}, 1'b1};
        end else if ((hmatch == {K{1'b0}}) && (min_idx == j)) begin
          hv_upd[j]                = 1'b1;
          hpage_upd[j*T +: T]      = res_tag;
          hcnt_upd[j*CntW +: CntW] = min_cnt + {{(CntW-1){1'b0}}, 1'b1};
          herr_upd[j*CntW +: CntW] = min_cnt;
        end
      end
    end
  end

  // ---------------------------------------------------------------- report buffer
  reg              busy_q;
  reg [IdxW-1:0]   idx_q;
  reg [15:0]       snum_q;
  reg [NB*CntW-1:0] shist_q;
  reg [K-1:0]      sv_q;
  reg [K*T-1:0]    spage_q;
  reg [K*CntW-1:0] scnt_q, serr_q;

  wire take  = iv_end && !busy_q;
  wire lose  = iv_end && busy_q;
  wire last  = busy_q && rec_ready_i && (idx_q == LastIdx);
  wire [IdxW-1:0] idx_d = take ? {IdxW{1'b0}} :
                          (busy_q && rec_ready_i) ? idx_q + {{(IdxW-1){1'b0}}, 1'b1} : idx_q;
  wire busy_d = take ? 1'b1 : (last ? 1'b0 : busy_q);

  // The values of the report in the buffer, value 0 first.
  reg [NV*36-1:0] vals;
  integer v;
  always @* begin
    vals = {(NV*36){1'b0}};
    for (v = 0; v < NB; v = v + 1) begin
      vals[v*36 +: 36] = {{(36-CntW){1'b0}}, shist_q[v*CntW +: CntW]};
    end
    for (v = 0; v < K; v = v + 1) begin
      if (sv_q[v]) begin
        vals[(NB+3*v)*36 +: 36]   = {{(36-T){1'b0}}, spage_q[v*T +: T]};
        vals[(NB+3*v+1)*36 +: 36] = {{(36-CntW){1'b0}}, scnt_q[v*CntW +: CntW]};
        vals[(NB+3*v+2)*36 +: 36] = {{(36-CntW){1'b0}}, serr_q[v*CntW +: CntW]};
      end
    end
  end

  wire [IdxW-1:0] vidx = (idx_q == {IdxW{1'b0}}) ? {IdxW{1'b0}} : idx_q - {{(IdxW-1){1'b0}}, 1'b1};
  wire [35:0] value = vals[vidx*36 +: 36];
  assign rec_valid_o = busy_q;
  assign rec_o = (idx_q == {IdxW{1'b0}}) ? {1'b1, 3'd3, 4'd1, NumValues, snum_q}
                                         : {1'b1, 3'd4, value};
  assign lost_o = lost_q;

  // ---------------------------------------------------------------- registers
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cyc_q      <= 32'd0;
      lost_q     <= 32'd0;
      interval_q <= 16'd0;
      hist_q     <= {(NB*CntW){1'b0}};
      hv_q       <= {K{1'b0}};
      hpage_q    <= {(K*T){1'b0}};
      hcnt_q     <= {(K*CntW){1'b0}};
      herr_q     <= {(K*CntW){1'b0}};
      busy_q     <= 1'b0;
      idx_q      <= {IdxW{1'b0}};
    end else begin
      cyc_q      <= cyc_d;
      lost_q     <= lose ? lost_q + 32'd1 : lost_q;
      interval_q <= iv_end ? interval_q + 16'd1 : interval_q;
      hist_q     <= iv_end ? {(NB*CntW){1'b0}} : hist_upd;
      hv_q       <= iv_end ? {K{1'b0}} : hv_upd;
      hpage_q    <= iv_end ? {(K*T){1'b0}} : hpage_upd;
      hcnt_q     <= iv_end ? {(K*CntW){1'b0}} : hcnt_upd;
      herr_q     <= iv_end ? {(K*CntW){1'b0}} : herr_upd;
      busy_q     <= busy_d;
      idx_q      <= idx_d;
    end
  end

  // The report buffer: written only when a report is taken.
  always @(posedge clk_i) begin
    if (take) begin
      snum_q  <= interval_q;
      shist_q <= hist_upd;
      sv_q    <= hv_upd;
      spage_q <= hpage_upd;
      scnt_q  <= hcnt_upd;
      serr_q  <= herr_upd;
    end
  end

endmodule

`default_nettype wire
