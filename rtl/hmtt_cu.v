// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_cu: Config Unit (docs/board.md section 4, docs/wire-format.md 3.2).
//
// Recognises references that fall in the config space [cfg_base_i,
// cfg_base_i + cfg_size_i) and turns them into EVENT items with index
// (address - cfg_base_i) >> 6 and the write bit; they never become references.
// Index 0 is BEGIN TRACING and index 1 END TRACING: the tracing state is unset
// after reset (tracing = trace_on_reset_i), on after BEGIN, off after END. Other
// references pass as reference items only while tracing is on (the state before
// the command). Events pass whatever the state.
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

  wire [PhysW-1:0] offset = ref_addr_i - cfg_base_i;
  wire in_cfg = (ref_addr_i >= cfg_base_i) && (offset < cfg_size_i);
  wire [PhysW-1:0] index = {6'd0, offset[PhysW-1:6]} & {{(PhysW-23){1'b0}}, {23{1'b1}}};

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
        if (offset[PhysW-1:6] == {(PhysW-6){1'b0}}) trace_d = TrOn;
        else if (offset[PhysW-1:6] == {{(PhysW-7){1'b0}}, 1'b1}) trace_d = TrOff;
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

  wire unused_offset = ^offset[5:0];

  assign item_valid_o = valid_q;
  assign item_event_o = event_q;
  assign item_write_o = write_q;
  assign item_data_o  = data_q;
  assign item_time_o  = time_q;
  assign tracing_o    = tracing;

endmodule

`default_nettype wire
