// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_tfu: TX FIFO Unit (docs/board.md section 5).
//
// A FIFO of Depth entries of time-stamped items (absolute time, kind, write
// bit, address or index, loss count) between the capture path and the packer.
// Push: an item is accepted iff count_q < Depth; otherwise it is dropped and
// drop_q counts it (saturating at 2^36-1). An accepted item carries loss =
// drop_q and clears it, so the packer sends one LOSS record with that count
// just before the item. While flush_i is high, drop_q > 0, there is room and
// no item arrives, a loss-only entry is pushed (the lost tail of the trace).
// Report port (docs/board.md 13): rep_valid_i offers an online unit's report
// item (kind 3, write bit = unit, data = its record count NV + 1). The CU's
// item wins the edge; otherwise the report is pushed iff count_q < Depth
// (rep_taken_o), and it is never dropped: the unit keeps offering it. A report
// takes the pending loss count like any item, carries no time and leaves the
// gap base (the previous time-carrying item) unchanged. The loss-only entry of
// the flush yields to a report too.
// Pop (combinational, ent_valid_o): count_q > 0, tokens_q >= 0 and the packer
// ready. Link rate: a token bucket in Q16.16 bytes,
// tokens_d = min(BurstBytes, tokens_q + rate_i) - 5 * emit_i, so the FIFO
// drains at the link rate and a slow link fills it. Which input wins: a push
// and a pop in the same cycle both happen; push acceptance looks at count_q
// only (a same-cycle pop does not make room).
//
// The gap is a carry-select subtraction (hmtt_csel_sub: 32-bit carry chains).
//
// Latency: an item pushed at the edge ending cycle p can be popped in cycle
// p+1 at the earliest. Each entry also carries its gap to the previous accepted
// item (time-carrying), so the packer's duration needs no subtraction. The memory reads asynchronously (first word fall
// through); on an FPGA it maps to block RAM with an output register.
`default_nettype none

module hmtt_tfu #(
  parameter integer Depth      = 16384,
  parameter integer TimeW      = 64,
  parameter integer DataW      = 32,
  parameter integer BurstBytes = 1472
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  // Settings
  input  wire [19:0]      rate_i,       // record bytes per cycle, Q16.16 (> 0)
  input  wire             flush_i,
  // Items from the CU
  input  wire             item_valid_i,
  input  wire             item_event_i,
  input  wire             item_write_i,
  input  wire [DataW-1:0] item_data_i,
  input  wire [TimeW-1:0] item_time_i,
  // Report items from the online units
  input  wire             rep_valid_i,
  input  wire             rep_unit_i,   // 0 Statistic Unit, 1 RDHPU
  input  wire [8:0]       rep_len_i,    // records of the report: REPORT + NV REPORT_VALUEs
  output wire             rep_taken_o,  // the report item is pushed at this edge
  // Entries to the packer
  input  wire             pack_ready_i,
  input  wire             emit_i,       // the packer writes a record this cycle
  output wire             ent_valid_o,  // pop
  output wire [1:0]       ent_kind_o,   // 0 reference, 1 event, 2 loss only, 3 report
  output wire             ent_write_o,
  output wire [DataW-1:0] ent_data_o,
  output wire [TimeW-1:0] ent_time_o,
  output wire [63:0]      ent_gap_o,    // time since the previous time-carrying entry
  output wire [35:0]      ent_loss_o,
  // Status
  output wire             idle_o,       // empty and no drops pending
  output wire [63:0]      dropped_o,    // items dropped since reset
  output wire [PtrW:0]    high_water_o
);

  localparam integer PtrW = $clog2(Depth);
  localparam integer EntW = 2 + 1 + DataW + TimeW + 64 + 36;
  localparam [PtrW:0] Full = Depth[PtrW:0];
  localparam integer TokW = 40;
  localparam signed [TokW-1:0] Cap  = BurstBytes * 65536;
  localparam signed [TokW-1:0] Cost = 5 * 65536;
  localparam [35:0] LossMax = {36{1'b1}};

  reg [EntW-1:0] mem_q [0:Depth-1];
  reg [PtrW-1:0] wptr_q, rptr_q;
  reg [PtrW:0]   count_q, hwm_q;
  reg [35:0]     drop_q;
  reg [63:0]     dropped_q;
  reg signed [TokW-1:0] tokens_q;
  reg [TimeW-1:0] acc_time_q;  // time of the last accepted item (the packer's last_time when it leaves)

  wire room = count_q != Full;
  wire rep_push = rep_valid_i && !item_valid_i && room;
  wire lossonly = flush_i && (drop_q != 36'd0) && !item_valid_i && !rep_valid_i && room;
  wire push = (item_valid_i && room) || rep_push || lossonly;
  wire drop = item_valid_i && !room;
  wire pop = (count_q != {(PtrW+1){1'b0}}) && !tokens_q[TokW-1] && pack_ready_i;

  wire [1:0] push_kind = rep_push ? 2'd3 : (lossonly ? 2'd2 : {1'b0, item_event_i});
  wire push_write = rep_push ? rep_unit_i : item_write_i;
  wire [DataW-1:0] push_data = rep_push ? {{(DataW-9){1'b0}}, rep_len_i} : item_data_i;
  // The gap to the previous accepted item is computed here, so the packer needs no 64-bit subtraction.
  wire [63:0] push_gap;
  hmtt_csel_sub #(.Width(64)) u_gap (
    .a_i({{(64-TimeW){1'b0}}, item_time_i}), .b_i({{(64-TimeW){1'b0}}, acc_time_q}), .diff_o(push_gap)
  );
  wire accept = item_valid_i && room;
  wire [EntW-1:0] push_ent = {push_kind, push_write, push_data, item_time_i, push_gap, drop_q};

  // Token bucket.
  wire signed [TokW-1:0] filled = tokens_q + $signed({{(TokW-20){1'b0}}, rate_i});
  wire signed [TokW-1:0] capped = (filled > Cap) ? Cap : filled;
  wire signed [TokW-1:0] tokens_d = emit_i ? capped - Cost : capped;

  wire [PtrW:0] count_d = count_q + {{PtrW{1'b0}}, push} - {{PtrW{1'b0}}, pop};
  wire [PtrW:0] occupancy = count_q + {{PtrW{1'b0}}, push};
  wire [PtrW:0] hwm_d = (occupancy > hwm_q) ? occupancy : hwm_q;
  wire [35:0] drop_d = drop ? ((drop_q == LossMax) ? drop_q : drop_q + 36'd1) : (push ? 36'd0 : drop_q);
  wire [63:0] dropped_d = dropped_q + {63'd0, drop};

  always @(posedge clk_i) begin
    if (push) mem_q[wptr_q] <= push_ent;
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q    <= {PtrW{1'b0}};
      rptr_q    <= {PtrW{1'b0}};
      count_q   <= {(PtrW+1){1'b0}};
      hwm_q     <= {(PtrW+1){1'b0}};
      drop_q    <= 36'd0;
      dropped_q <= 64'd0;
      tokens_q  <= {TokW{1'b0}};
      acc_time_q <= {TimeW{1'b0}};
    end else begin
      wptr_q    <= push ? wptr_q + {{(PtrW-1){1'b0}}, 1'b1} : wptr_q;
      rptr_q    <= pop ? rptr_q + {{(PtrW-1){1'b0}}, 1'b1} : rptr_q;
      count_q   <= count_d;
      hwm_q     <= hwm_d;
      drop_q    <= drop_d;
      dropped_q <= dropped_d;
      tokens_q  <= tokens_d;
      acc_time_q <= accept ? item_time_i : acc_time_q;
    end
  end

  wire [EntW-1:0] head = mem_q[rptr_q];

  assign rep_taken_o  = rep_push;
  assign ent_valid_o  = pop;
  assign ent_kind_o   = head[EntW-1 -: 2];
  assign ent_write_o  = head[EntW-3];
  assign ent_data_o   = head[TimeW+64+36 +: DataW];
  assign ent_time_o   = head[64+36 +: TimeW];
  assign ent_gap_o    = head[36 +: 64];
  assign ent_loss_o   = head[35:0];
  assign idle_o       = (count_q == {(PtrW+1){1'b0}}) && (drop_q == 36'd0);
  assign dropped_o    = dropped_q;
  assign high_water_o = hwm_q;

endmodule

`default_nettype wire
