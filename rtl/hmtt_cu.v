// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_cu: Config Unit (docs/board.md section 4, docs/wire-format.md 3.2).
//
// Recognises references that fall in the config space [cfg_base_i,
// cfg_base_i + cfg_size_i) (cfg_base_i 64-byte aligned) and turns them into EVENT items with index
// (address - cfg_base_i) >> 6 and the write bit; they never become references.
// Index 0 is BEGIN TRACING and index 1 END TRACING: the tracing state is unset
// after reset (tracing = trace_on_reset_i), on after BEGIN, off after END. Other
// references pass as reference items only while tracing is on (the state before
// the command). Events pass whatever the state. cfg_base_i must be 64-byte
// aligned (docs/board.md 4): the config-space test compares the address with both
// ends of the space in half-width pieces and takes the index as a difference of
// 64-byte line numbers, so no subtraction precedes a compare.
//
// Latency: 1 cycle (reference in cycle c+2 -> item_valid_o in cycle c+3).
`default_nettype none

module hmtt_cu #(
  parameter integer TimeW = 64,
  parameter integer PhysW = 32
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  // Board settings
  input  wire [PhysW-1:0] cfg_base_i,
  input  wire [PhysW-1:0] cfg_size_i,
  input  wire             trace_on_reset_i,
  // References from the DSMU
  input  wire             ref_valid_i,
  input  wire             ref_write_i,
  input  wire [PhysW-1:0] ref_addr_i,
  input  wire [TimeW-1:0] ref_time_i,
  // Items for the TX FIFO
  output wire             item_valid_o,
  output wire             item_event_o,   // 1 = EVENT (data = index), 0 = reference (data = address)
  output wire             item_write_o,
  output wire [PhysW-1:0] item_data_o,
  output wire [TimeW-1:0] item_time_o,
  output wire             tracing_o
);

  localparam [1:0] TrUnset = 2'd0;
  localparam [1:0] TrOn    = 2'd1;
  localparam [1:0] TrOff   = 2'd2;

  reg [1:0] trace_q, trace_d;
  wire tracing = (trace_q == TrUnset) ? trace_on_reset_i : (trace_q == TrOn);

  // The address is compared with both ends of the config space rather than subtracted first, and
  // as cfg_base_i is 64-byte aligned (docs/board.md 4) the index is the difference of the 64-byte
  // line numbers, only as wide as the EVENT's 23-bit index: no subtraction precedes a compare.
  localparam integer LineW = PhysW - 6;
  localparam integer IdxW = (LineW < 23) ? LineW : 23;
  wire [PhysW:0]   cfg_end = {1'b0, cfg_base_i} + {1'b0, cfg_size_i};
  // Each compare in two halves side by side (a carry chain of half the width, then one LUT):
  // a >= b  <=>  a_hi > b_hi, or a_hi == b_hi and a_lo >= b_lo.
  localparam integer LoW = (PhysW + 1) / 2;
  wire [PhysW:0]   addr33 = {1'b0, ref_addr_i};
  wire [PhysW:0]   base33 = {1'b0, cfg_base_i};
  wire             ge_base = (addr33[PhysW:LoW] > base33[PhysW:LoW]) ||
                             ((addr33[PhysW:LoW] == base33[PhysW:LoW]) && (addr33[LoW-1:0] >= base33[LoW-1:0]));
  wire             lt_end = (addr33[PhysW:LoW] < cfg_end[PhysW:LoW]) ||
                            ((addr33[PhysW:LoW] == cfg_end[PhysW:LoW]) && (addr33[LoW-1:0] < cfg_end[LoW-1:0]));
  wire             in_cfg = ge_base && lt_end;
  wire [LineW-1:0] line = ref_addr_i[PhysW-1:6];
  wire [LineW-1:0] base_line = cfg_base_i[PhysW-1:6];
  wire [LineW-1:0] base_line1 = base_line + {{(LineW-1){1'b0}}, 1'b1};
  wire [IdxW-1:0]  index_n = line[IdxW-1:0] - base_line[IdxW-1:0];
  wire [PhysW-1:0] index = {{(PhysW-IdxW){1'b0}}, index_n};

  reg             valid_d, event_d;
  reg [PhysW-1:0] data_d;
  always @* begin
    trace_d = trace_q;
    valid_d = 1'b0;
    event_d = 1'b0;
    data_d  = ref_addr_i;
    if (ref_valid_i) begin
      if (in_cfg) begin
        valid_d = 1'b1;
        event_d = 1'b1;
        data_d  = index;
        if (line == base_line) trace_d = TrOn;
        else if (line == base_line1) trace_d = TrOff;
      end else begin
        valid_d = tracing;
      end
    end
  end

  reg             valid_q, event_q, write_q;
  reg [PhysW-1:0] data_q;
  reg [TimeW-1:0] time_q;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      trace_q <= TrUnset;
      valid_q <= 1'b0;
      event_q <= 1'b0;
      write_q <= 1'b0;
      data_q  <= {PhysW{1'b0}};
      time_q  <= {TimeW{1'b0}};
    end else begin
      trace_q <= trace_d;
      valid_q <= valid_d;
      event_q <= event_d;
      write_q <= ref_write_i;
      data_q  <= data_d;
      time_q  <= ref_time_i;
    end
  end

  wire unused_cfg = ^{cfg_base_i[5:0], ref_addr_i[5:0]};

  assign item_valid_o = valid_q;
  assign item_event_o = event_q;
  assign item_write_o = write_q;
  assign item_data_o  = data_q;
  assign item_time_o  = time_q;
  assign tracing_o    = tracing;

endmodule

`default_nettype wire
