// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_framer: spreads the packer's frames over 1-4 links (docs/board.md
// section 7).
//
// Frame n goes to link n mod links_i. The framer counts the records of the
// open frame, latches its base_time and tracing flag with its first record, and
// routes each record and the frame close to the current link's hmtt_link_tx,
// which adds the header, the link's sequence number and the CRC.
//
// Latency: 0 (combinational routing; the link buffers the frame).
`default_nettype none

module hmtt_framer #(
  parameter integer TimeW = 64
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  input  wire [2:0]       links_i,        // 1..4
  // From the packer
  input  wire             rec_valid_i,
  input  wire [39:0]      rec_i,
  input  wire             close_i,
  input  wire [TimeW-1:0] base_i,
  input  wire             flag_i,
  // To the links
  output wire [3:0]       wr_valid_o,     // one-hot: the current link
  output wire [39:0]      wr_rec_o,
  output wire [3:0]       close_o,
  output wire [8:0]       close_count_o,
  output wire [TimeW-1:0] close_base_o,
  output wire             close_flag_o,
  output wire [63:0]      frames_o
);

  reg [1:0]       link_q, link_d;
  reg [8:0]       count_q, count_d;
  reg [TimeW-1:0] base_q, base_d;
  reg             flag_q, flag_d;
  reg [63:0]      frames_q, frames_d;

  wire first = count_q == 9'd0;
  wire [8:0] count_n = count_q + {8'd0, rec_valid_i};
  wire do_close = close_i && (count_n != 9'd0);
  wire [3:0] onehot = 4'd1 << link_q;

  always @* begin
    link_d = link_q;
    count_d = count_n;
    base_d = (rec_valid_i && first) ? base_i : base_q;
    flag_d = (rec_valid_i && first) ? flag_i : flag_q;
    frames_d = frames_q;
    if (do_close) begin
      count_d = 9'd0;
      frames_d = frames_q + 64'd1;
      link_d = ({1'b0, link_q} + 3'd1 >= links_i) ? 2'd0 : link_q + 2'd1;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      link_q <= 2'd0;
      count_q <= 9'd0;
      base_q <= {TimeW{1'b0}};
      flag_q <= 1'b0;
      frames_q <= 64'd0;
    end else begin
      link_q <= link_d;
      count_q <= count_d;
      base_q <= base_d;
      flag_q <= flag_d;
      frames_q <= frames_d;
    end
  end

  assign wr_valid_o    = rec_valid_i ? onehot : 4'd0;
  assign wr_rec_o      = rec_i;
  assign close_o       = do_close ? onehot : 4'd0;
  assign close_count_o = count_n;
  assign close_base_o  = (rec_valid_i && first) ? base_i : base_q;
  assign close_flag_o  = (rec_valid_i && first) ? flag_i : flag_q;
  assign frames_o      = frames_q;

endmodule

`default_nettype wire
