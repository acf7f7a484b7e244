// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_csel_sub: diff_o = a_i - b_i (modulo 2^Width) as a carry-select
// subtractor, for the board's 64-bit time arithmetic on the capture path.
//
// The low half is subtracted once; the high half twice side by side, without
// and with the low half's borrow, and the borrow picks one. The longest carry
// chain is Width/2 bits plus a 2:1 mux instead of Width bits: on an iCE40 a
// 64-bit chain alone caps the clock near 90 MHz, a 32-bit one near 160 MHz.
//
// Latency: 0 (combinational).
`default_nettype none

module hmtt_csel_sub #(
  parameter integer Width = 64  // even
) (
  input  wire [Width-1:0] a_i,
  input  wire [Width-1:0] b_i,
  output wire [Width-1:0] diff_o
);

  localparam integer Half = Width / 2;

  wire [Half:0]   lo = {1'b0, a_i[Half-1:0]} - {1'b0, b_i[Half-1:0]};  // lo[Half]: borrow
  wire [Half-1:0] hi_nb = a_i[Width-1:Half] - b_i[Width-1:Half];
  wire [Half-1:0] hi_b = a_i[Width-1:Half] + ~b_i[Width-1:Half];         // a - b - 1

  assign diff_o = {lo[Half] ? hi_b : hi_nb, lo[Half-1:0]};

endmodule

`default_nettype wire
