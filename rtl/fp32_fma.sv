// fp32_fma -- IEEE 754 binary32 fused multiply-add y = a*b + c, one rounding,
// round-to-nearest-even, with flush-to-zero. Hand-written primitive (rtl/),
// copied verbatim into every `cello gen` output that uses it.
//
// Numeric contract (sw/fp/fp32.hpp is the executable specification):
//   * Subnormal inputs are read as zero of the same sign.
//   * The exact a*b + c is rounded once, as IEEE 754 does with gradual
//     underflow; a result that is then subnormal becomes zero with the sign of
//     the exact result. So a value in [2^-126 - 2^-150, 2^-126) rounds up to
//     the smallest normal 2^-126 and is kept; anything smaller flushes.
//   * Overflow rounds to infinity. Infinities and signed zeros follow IEEE 754
//     (an exact zero sum is +0 unless both addends are -0).
//   * Every NaN result is the canonical quiet NaN 32'h7fc00000 (invalid
//     operations inf*0 and inf-inf included; input payloads are not kept).
//
// Pipeline: STAGES >= 1 register levels between the operands and y. Register
// level k is placed at fixed cut points (1: after unpack/multiply/align,
// 2: after the add, 3: after normalisation, 4: after rounding); fewer stages
// use the later cuts first and more than four add plain output registers.
// Every register level advances only when `en` is high, so a stalled pipeline
// holds its contents (the caller owns valid tracking; see fp32_fma_rv).
//
// Datapath: the 48-bit product P = ma*mb sits in bits [47:0] of a 75-bit
// window whose bit 46 weighs 2^(ea+eb-254). The addend significand starts at
// window bits [73:50] and shifts right by ea+eb-ec-100, clamped to [0, 74];
// bits that fall below the window only matter as a sticky bit appended under
// bit 0. Clamping at 0 keeps the product at least two bits below the addend's
// last bit, where it can only act as sticky as well, so the rounded result
// equals that of the true alignment (the exponent is then taken from c).
module fp32_fma #(
  parameter int STAGES = 3
) (
  input  logic        clk,
  input  logic        en,  // advance every register level by one
  input  logic [31:0] a,
  input  logic [31:0] b,
  input  logic [31:0] c,
  output logic [31:0] y
);
  localparam bit CUT1 = STAGES >= 3;
  localparam bit CUT2 = STAGES >= 2;
  localparam bit CUT3 = STAGES >= 4;
  localparam bit CUT4 = STAGES >= 1;
  localparam int EXTRA = STAGES > 4 ? STAGES - 4 : 0;

  localparam logic [31:0] QNAN = 32'h7fc00000;

  // ------------------------------------------------------------------ stage 1
  // Unpack, classify, multiply, align the addend.
  logic        a_zero, b_zero, c_zero, a_inf, b_inf, c_inf, a_nan, b_nan, c_nan;
  logic [23:0] ma, mb, mc;
  logic [97:0] addend_ext;
  logic [11:0] sh_raw;
  logic [6:0]  sh;

  logic        s1_sp, s1_sc, s1_pzero, s1_czero, s1_nan, s1_inf, s1_inf_sign;
  logic [47:0] s1_prod;
  logic [73:0] s1_addend;
  logic        s1_sticky;
  logic [11:0] s1_ebase;   // biased exponent of window bit 74 (signed); result = ebase - lz
  logic [31:0] s1_c;

  always_comb begin
    a_zero = a[30:23] == 8'd0;
    b_zero = b[30:23] == 8'd0;
    c_zero = c[30:23] == 8'd0;
    a_inf  = a[30:23] == 8'hff && a[22:0] == 23'd0;
    b_inf  = b[30:23] == 8'hff && b[22:0] == 23'd0;
    c_inf  = c[30:23] == 8'hff && c[22:0] == 23'd0;
    a_nan  = a[30:23] == 8'hff && a[22:0] != 23'd0;
    b_nan  = b[30:23] == 8'hff && b[22:0] != 23'd0;
    c_nan  = c[30:23] == 8'hff && c[22:0] != 23'd0;
    ma = a_zero ? 24'd0 : {1'b1, a[22:0]};
    mb = b_zero ? 24'd0 : {1'b1, b[22:0]};
    mc = c_zero ? 24'd0 : {1'b1, c[22:0]};

    s1_sp       = a[31] ^ b[31];
    s1_sc       = c[31];
    s1_pzero    = a_zero || b_zero;
    s1_czero    = c_zero;
    s1_nan      = a_nan || b_nan || c_nan || (a_inf && b_zero) || (b_inf && a_zero)
                  || ((a_inf || b_inf) && c_inf && (s1_sp != s1_sc));
    s1_inf      = a_inf || b_inf || c_inf;
    s1_inf_sign = (a_inf || b_inf) ? s1_sp : s1_sc;
    s1_prod     = {24'd0, ma} * {24'd0, mb};

    sh_raw = {4'd0, a[30:23]} + {4'd0, b[30:23]} - {4'd0, c[30:23]} - 12'd100;
    if (sh_raw[11]) sh = 7'd0;
    else if (sh_raw > 12'd74) sh = 7'd74;
    else sh = sh_raw[6:0];
    addend_ext = {mc, 74'd0} >> sh;
    s1_addend  = addend_ext[97:24];
    s1_sticky  = addend_ext[23:0] != 24'd0;
    // Window bit 74 weighs 2^(ebase-127) (biased ebase); with the shift clamped
    // at 0 the window is anchored to the addend instead of the product.
    s1_ebase   = sh_raw[11] ? {4'd0, c[30:23]} + 12'd1 : {4'd0, a[30:23]} + {4'd0, b[30:23]} - 12'd99;
    s1_c       = {c[31], c_zero ? 31'd0 : c[30:0]};
  end

  // Stage-1 outputs as seen by stage 2 (registered when CUT1).
  logic        r1_sp, r1_sc, r1_pzero, r1_czero, r1_nan, r1_inf, r1_inf_sign, r1_sticky;
  logic [47:0] r1_prod;
  logic [73:0] r1_addend;
  logic [11:0] r1_ebase;
  logic [31:0] r1_c;
  generate
    if (CUT1) begin : g_cut1
      always_ff @(posedge clk) begin
        if (en) begin
          r1_sp <= s1_sp; r1_sc <= s1_sc; r1_pzero <= s1_pzero; r1_czero <= s1_czero;
          r1_nan <= s1_nan; r1_inf <= s1_inf; r1_inf_sign <= s1_inf_sign; r1_sticky <= s1_sticky;
          r1_prod <= s1_prod; r1_addend <= s1_addend; r1_ebase <= s1_ebase; r1_c <= s1_c;
        end
      end
    end else begin : g_pass1
      always_comb begin
        r1_sp = s1_sp; r1_sc = s1_sc; r1_pzero = s1_pzero; r1_czero = s1_czero;
        r1_nan = s1_nan; r1_inf = s1_inf; r1_inf_sign = s1_inf_sign; r1_sticky = s1_sticky;
        r1_prod = s1_prod; r1_addend = s1_addend; r1_ebase = s1_ebase; r1_c = s1_c;
      end
    end
  endgenerate

  // ------------------------------------------------------------------ stage 2
  // Add or subtract in a 76-bit magnitude (window << 1 | sticky).
  logic [75:0] opx, opy;
  logic [76:0] diff;
  logic [75:0] s2_mag;
  logic        s2_sign;
  logic [31:0] s2_special;  // result when the main path is bypassed
  logic        s2_bypass;
  logic [11:0] s2_ebase;

  always_comb begin
    opx  = {27'd0, r1_prod, 1'b0};
    opy  = {1'b0, r1_addend, r1_sticky};
    diff = {1'b0, opx} - {1'b0, opy};
    if (r1_sp == r1_sc) begin
      s2_mag  = opx + opy;
      s2_sign = r1_sp;
    end else if (diff[76]) begin
      s2_mag  = opy - opx;
      s2_sign = r1_sc;
    end else begin
      s2_mag  = diff[75:0];
      s2_sign = r1_sp;
    end
    s2_bypass = 1'b1;
    if (r1_nan) s2_special = QNAN;
    else if (r1_inf) s2_special = {r1_inf_sign, 8'hff, 23'd0};
    else if (r1_pzero && r1_czero) s2_special = {r1_sp && r1_sc, 31'd0};
    else if (r1_pzero) s2_special = r1_c;
    else begin
      s2_special = 32'd0;
      s2_bypass  = 1'b0;
    end
    s2_ebase = r1_ebase;
  end

  logic [75:0] r2_mag;
  logic        r2_sign, r2_bypass;
  logic [31:0] r2_special;
  logic [11:0] r2_ebase;
  generate
    if (CUT2) begin : g_cut2
      always_ff @(posedge clk) begin
        if (en) begin
          r2_mag <= s2_mag; r2_sign <= s2_sign; r2_bypass <= s2_bypass;
          r2_special <= s2_special; r2_ebase <= s2_ebase;
        end
      end
    end else begin : g_pass2
      always_comb begin
        r2_mag = s2_mag; r2_sign = s2_sign; r2_bypass = s2_bypass;
        r2_special = s2_special; r2_ebase = s2_ebase;
      end
    end
  endgenerate

  // ------------------------------------------------------------------ stage 3
  // Normalise: shift the leading one to bit 75, counting the shift.
  logic [75:0] n1, n2, n3, n4, n5, n6, n7;
  logic        z64, z32, z16, z8, z4, z2, z1;
  logic [23:0] s3_mant;
  logic        s3_round, s3_sticky, s3_zero;
  logic [11:0] s3_exp;  // biased exponent of the normalised value (signed)

  always_comb begin
    z64 = r2_mag[75:12] == 64'd0;
    n1  = z64 ? {r2_mag[11:0], 64'd0} : r2_mag;
    z32 = n1[75:44] == 32'd0;
    n2  = z32 ? {n1[43:0], 32'd0} : n1;
    z16 = n2[75:60] == 16'd0;
    n3  = z16 ? {n2[59:0], 16'd0} : n2;
    z8  = n3[75:68] == 8'd0;
    n4  = z8 ? {n3[67:0], 8'd0} : n3;
    z4  = n4[75:72] == 4'd0;
    n5  = z4 ? {n4[71:0], 4'd0} : n4;
    z2  = n5[75:74] == 2'd0;
    n6  = z2 ? {n5[73:0], 2'd0} : n5;
    z1  = !n6[75];
    n7  = z1 ? {n6[74:0], 1'b0} : n6;
    s3_mant   = n7[75:52];
    s3_round  = n7[51];
    s3_sticky = n7[50:0] != 51'd0;
    s3_zero   = r2_mag == 76'd0;
    s3_exp    = r2_ebase - {5'd0, z64, z32, z16, z8, z4, z2, z1};
  end

  logic [23:0] r3_mant;
  logic        r3_round, r3_sticky, r3_zero, r3_sign, r3_bypass;
  logic [11:0] r3_exp;
  logic [31:0] r3_special;
  generate
    if (CUT3) begin : g_cut3
      always_ff @(posedge clk) begin
        if (en) begin
          r3_mant <= s3_mant; r3_round <= s3_round; r3_sticky <= s3_sticky; r3_zero <= s3_zero;
          r3_sign <= r2_sign; r3_bypass <= r2_bypass; r3_exp <= s3_exp; r3_special <= r2_special;
        end
      end
    end else begin : g_pass3
      always_comb begin
        r3_mant = s3_mant; r3_round = s3_round; r3_sticky = s3_sticky; r3_zero = s3_zero;
        r3_sign = r2_sign; r3_bypass = r2_bypass; r3_exp = s3_exp; r3_special = r2_special;
      end
    end
  endgenerate

  // ------------------------------------------------------------------ stage 4
  // Round to nearest even, then overflow to infinity / flush underflow.
  logic        inc;
  logic [23:0] frac_r;  // {carry, fraction} after rounding
  logic [11:0] exp_r;
  logic [31:0] s4_y;

  always_comb begin
    inc    = r3_round && (r3_sticky || r3_mant[0]);
    frac_r = {1'b0, r3_mant[22:0]} + {23'd0, inc};  // carry: 1.11..1 rounded up to 10.0
    exp_r  = r3_exp + {11'd0, frac_r[23]};
    if (r3_bypass) s4_y = r3_special;
    else if (r3_zero) s4_y = 32'd0;  // exact cancellation: +0 under RNE
    else if (r3_exp[11] || r3_exp == 12'd0) begin
      // Below 2^-126 before rounding: only [2^-126 - 2^-150, 2^-126) survives,
      // as the smallest normal; everything else is a subnormal and flushes.
      if (r3_exp == 12'd0 && r3_mant == 24'hffffff) s4_y = {r3_sign, 8'd1, 23'd0};
      else s4_y = {r3_sign, 31'd0};
    end else if (exp_r >= 12'd255) s4_y = {r3_sign, 8'hff, 23'd0};
    else s4_y = {r3_sign, exp_r[7:0], frac_r[22:0]};
  end

  logic [31:0] r4_y;
  generate
    if (CUT4) begin : g_cut4
      always_ff @(posedge clk) begin
        if (en) r4_y <= s4_y;
      end
    end else begin : g_pass4
      assign r4_y = s4_y;
    end
  endgenerate

  // ------------------------------------------------------------ extra stages
  generate
    if (EXTRA > 0) begin : g_extra
      logic [31:0] pipe [0:EXTRA-1];
      always_ff @(posedge clk) begin
        if (en) begin
          pipe[0] <= r4_y;
          for (int i = 1; i < EXTRA; i++) pipe[i] <= pipe[i-1];
        end
      end
      assign y = pipe[EXTRA-1];
    end else begin : g_noextra
      assign y = r4_y;
    end
  endgenerate
endmodule
