// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_rdhpu_stack: the LRU stack of the Reuse Distance & Hot Pages Unit
// (docs/board.md section 11), a systolic array after J. P. Grossman, "A
// Systolic Array for Implementing LRU Replacement" (MIT Project Aries TM-18,
// 2002).
//
// Behaviour. The stack holds up to Depth page numbers (tags), most recently
// used first. An access to page p reports its stack distance: the number of
// distinct other pages accessed since the last access to p, if p is among the
// Depth most recent pages (hit, distance 0 .. Depth-1), and a miss ("beyond
// Depth") otherwise, including the first access to p. Then p moves to the top
// and, on a miss with a full stack, the least recently used page drops out of
// the bottom (reported as evicted). This is exactly a software LRU stack capped
// at Depth entries (hmtt::board::LruStackDistance).
//
// Structure (systolic; every cell talks only to its neighbours). Cell i holds
// one entry (val, tag). An access travels down the array as a wavefront, one
// cell per cycle: in cycle t+i it is at cell i, together with a carry (the
// entry displaced from cell i-1), a hit flag and the distance found so far.
// A cell the wavefront reaches before the hit takes the carry and passes its
// old entry on as the next carry; the cell holding p takes the carry and sets
// the hit flag; below the hit nothing changes. The wave counts the cells it
// passes after the hit (0 in the hit's own cell, +1 in every cell below), so
// at the bottom the distance is Depth-1 minus that count: the distance
// register of a cell is cleared by the registered hit flag it receives, never
// by its own compare (a constant "distance = i" loaded on a match maps to the
// flip-flops' synchronous set/reset on an iCE40, and that net was the critical
// path at every depth: docs/board.md 11.4). At cell 0 the
// carry is p itself, so p lands at the top. The list shifts in the direction
// the access travels (Grossman's array keeps its list from LRU to MRU and
// shifts against the request, which is why his basic array takes an access
// every other cycle); here the access that follows one cycle behind meets
// every cell after the one before has left it, so the array accepts one access
// per cycle and every access sees exactly the stack its predecessors left.
// The critical path is one cell: a TagWidth-bit equality compare and the
// muxes of the entry and the wave registers, or a log2(Depth)-bit increment,
// independent of Depth (the only signals reaching every cell are the clock and
// the reset, and the reset only clears the valid bits).
//
// Timing. An access presented in cycle t (req_valid_i, req_tag_i; one per
// cycle, no back-pressure) comes out of the bottom in cycle t+Depth on
// res_valid_o with res_tag_o (the page), res_hit_o, res_dist_o (the distance on
// a hit, 0 on a miss) and res_evict_valid_o/res_evict_tag_o (the page that left
// the stack: only on a miss with a full stack). Latency = Depth cycles exactly;
// results leave in the order accesses entered. Every output comes straight
// from a register except res_dist_o, which is Depth-1 minus a registered count,
// forced to 0 on a miss (a subtract and an AND after the last register).
// Reset empties the stack.
`default_nettype none

module hmtt_rdhpu_stack #(
  parameter integer Depth    = 128,  // entries, >= 2
  parameter integer TagWidth = 24    // page-number bits
) (
  input  wire                clk_i,
  input  wire                rst_ni,
  // Accesses in
  input  wire                req_valid_i,
  input  wire [TagWidth-1:0] req_tag_i,
  // Results out, Depth cycles later
  output wire                res_valid_o,
  output wire [TagWidth-1:0] res_tag_o,
  output wire                res_hit_o,
  output wire [DistW-1:0]    res_dist_o,
  output wire                res_evict_valid_o,
  output wire [TagWidth-1:0] res_evict_tag_o
);

  localparam integer DistW = (Depth > 2) ? $clog2(Depth) : 1;
  localparam integer T = TagWidth;
  localparam integer LastI = Depth - 1;
  localparam [DistW-1:0] Last = LastI[DistW-1:0];

  // Cell entries.
  reg  [Depth-1:0]   val_q;
  wire [Depth-1:0]   val_d;
  reg  [Depth*T-1:0] tag_q;
  wire [Depth*T-1:0] tag_d;

  // Wave registers between cell i and cell i+1 (stage i = the wave leaving cell i).
  reg  [Depth-1:0]       wv_q,    wcv_q,    whit_q;
  wire [Depth-1:0]       wv_d,    wcv_d,    whit_d;
  reg  [Depth*T-1:0]     wtag_q,  wctag_q;
  wire [Depth*T-1:0]     wtag_d,  wctag_d;
  reg  [Depth*DistW-1:0] wdist_q;
  wire [Depth*DistW-1:0] wdist_d;

  // The wave entering each cell: cell 0 from the ports (the carry is the page
  // itself), cell i from stage i-1.
  wire [Depth-1:0]       in_v   = {wv_q[Depth-2:0], req_valid_i};
  wire [Depth-1:0]       in_cv  = {wcv_q[Depth-2:0], 1'b1};
  wire [Depth-1:0]       in_hit = {whit_q[Depth-2:0], 1'b0};
  wire [Depth*T-1:0]     in_tag  = {wtag_q[(Depth-1)*T-1:0], req_tag_i};
  wire [Depth*T-1:0]     in_ctag = {wctag_q[(Depth-1)*T-1:0], req_tag_i};
  wire [Depth*DistW-1:0] in_dist = {wdist_q[(Depth-1)*DistW-1:0], {DistW{1'b0}}};

  genvar i;
  generate
    for (i = 0; i < Depth; i = i + 1) begin : gen_cell
      wire [T-1:0] tag  = tag_q[i*T +: T];
      // The wavefront updates this cell unless the page was found above.
      wire write = in_v[i] && !in_hit[i];
      wire match = write && val_q[i] && (tag == in_tag[i*T +: T]);
      assign val_d[i]           = write ? in_cv[i] : val_q[i];
      assign tag_d[i*T +: T]    = write ? in_ctag[i*T +: T] : tag;
      assign wv_d[i]            = in_v[i];
      assign wtag_d[i*T +: T]   = in_tag[i*T +: T];
      assign whit_d[i]          = in_hit[i] || match;
      // Cells passed after the hit: 0 in the hit's own cell, +1 in each cell below.
      assign wdist_d[i*DistW +: DistW] = in_hit[i] ? in_dist[i*DistW +: DistW] + 1'b1 : {DistW{1'b0}};
      // The displaced entry travels on (none after a hit).
      assign wcv_d[i]           = write && !match && val_q[i];
      assign wctag_d[i*T +: T]  = tag;
    end
  endgenerate

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      val_q <= {Depth{1'b0}};
      wv_q  <= {Depth{1'b0}};
    end else begin
      val_q <= val_d;
      wv_q  <= wv_d;
    end
  end

  // Data registers, qualified by val_q / wv_q (no reset needed).
  always @(posedge clk_i) begin
    tag_q   <= tag_d;
    wtag_q  <= wtag_d;
    wctag_q <= wctag_d;
    wcv_q   <= wcv_d;
    whit_q  <= whit_d;
    wdist_q <= wdist_d;
  end

  assign res_valid_o       = wv_q[Depth-1];
  assign res_tag_o         = wtag_q[(Depth-1)*T +: T];
  assign res_hit_o         = whit_q[Depth-1];
  // The distance of a hit: Depth-1 minus the cells the wave passed after it.
  assign res_dist_o        = whit_q[Depth-1] ? Last - wdist_q[(Depth-1)*DistW +: DistW] : {DistW{1'b0}};
  assign res_evict_valid_o = wv_q[Depth-1] && wcv_q[Depth-1];
  assign res_evict_tag_o   = wctag_q[(Depth-1)*T +: T];

endmodule

`default_nettype wire
