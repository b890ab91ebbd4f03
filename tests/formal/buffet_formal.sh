#!/usr/bin/env bash
# Proves the buffet properties of buffet_checker.sv on one generated buffet with
# yosys-smtbmc and z3: a bounded check from reset (the base case) and the
# k-induction step, both of depth K.
#   buffet_formal.sh CELLO OUTDIR NAME DEPTH W IW CW SW UPDATE SCOREBOARD PORT K [MUTATION]
# UPDATE/SCOREBOARD are 0/1, PORT is separate|shared. MUTATION names a deliberate
# bug (see mutate below): the script then expects the proof to FAIL, and exits 0
# only if it does, so the test shows the proof can fail.
set -euo pipefail
cello=$1 out=$2 name=$3 depth=$4 w=$5 iw=$6 cw=$7 sw=$8 upd=$9 sb=${10} port=${11} k=${12} mutation=${13:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out" && mkdir -p "$out"
b=false; [ "$upd" = 1 ] && b=true
s=false; [ "$sb" = 1 ] && s=true
printf '{"name": "%s", "buffets": [{"name": "%s", "depth": %s, "data_width": %s, "index_width": %s, "update": %s, "scoreboard": %s, "write_port": "%s", "ram": "flop"}]}\n' \
  "$name" "$name" "$depth" "$w" "$iw" "$b" "$s" "$port" > "$out/config.json"
"$cello" gen --config "$out/config.json" --out "$out/rtl" > /dev/null

# Deliberate bugs, one per property family; each must break the proof.
mutate() {  # mutate FILE SED-EXPRESSION: fails when the expression changes nothing
  cp "$1" "$1.orig"
  sed -i "$2" "$1"
  if cmp -s "$1" "$1.orig"; then echo "mutation '$mutation' did not apply"; exit 2; fi
}
rtl="$out/rtl/$name.sv"
case "$mutation" in
  "") ;;
  extra_credit) mutate "$rtl" "s/credit_q     <= ${cw}'d${depth};/credit_q     <= ${cw}'d$((depth - 1)) + ${cw}'d1 + ${cw}'d1;/" ;;  # P1, P2
  read_unfilled) mutate "$rtl" 's/assign rd_in_window = (rd_req_idx < occ_q);/assign rd_in_window = (rd_req_idx <= occ_q);/' ;;  # P3
  ignore_pending) mutate "$rtl" 's/(rd_in_window \&\& !pending_q\[rd_slot\] \&\& rsp_room)/(rd_in_window \&\& rsp_room)/' ;;  # P3 (scoreboard)
  drop_response) mutate "$rtl" 's/else if (rd_rsp_ready) rsp_valid_q <= 1'"'"'b0;/else rsp_valid_q <= 1'"'"'b0;/' ;;  # P4
  starve_read) mutate "$rtl" 's/assign rd_req_ready = rd_idx_bad || (/assign rd_req_ready = rd_idx_bad || (!fill_valid \&\& /' ;;  # P5
  *) echo "unknown mutation $mutation"; exit 2 ;;
esac

# The wrapper puts the checker beside the buffet; absent ports are tied off.
upd_ports="" wu_port="" pend_conn="'0" expose="w:occ_q w:head_q w:credit_q w:credit_acc_q"
if [ "$upd" = 1 ]; then
  upd_ports=".upd_valid(upd_valid), .upd_ready(upd_ready), .upd_idx(upd_idx), .upd_data(upd_data),"
fi
if [ "$sb" = 1 ]; then
  wu_port=".rd_req_will_update(rd_req_will_update),"
  pend_conn="pending_q"
  expose="$expose w:pending_q"
fi
cat > "$out/formal_top.sv" <<SV
module formal_top (
  input logic clk, input logic rst_n,
  input logic fill_valid, input logic [$((w - 1)):0] fill_data,
  input logic rd_req_valid, input logic [$((iw - 1)):0] rd_req_idx, input logic rd_req_will_update,
  input logic rd_rsp_ready,
  input logic upd_valid_in, input logic [$((iw - 1)):0] upd_idx, input logic [$((w - 1)):0] upd_data,
  input logic shr_valid, input logic [$((cw - 1)):0] shr_num,
  input logic credit_ready
);
  logic fill_ready, rd_req_ready, rd_rsp_valid, upd_ready, shr_ready, credit_valid;
  logic [$((w - 1)):0] rd_rsp_data;
  logic [$((cw - 1)):0] credit_num, occ_q, credit_q, credit_acc_q;
  logic [$((sw - 1)):0] head_q;
  logic [$((depth - 1)):0] pending_q;
  logic [3:0] status_err;
  wire upd_valid = $([ "$upd" = 1 ] && echo upd_valid_in || echo "1'b0");
$([ "$upd" = 1 ] || echo "  assign upd_ready = 1'b0;")
$([ "$sb" = 1 ] || echo "  assign pending_q = '0;")
  $name dut (
    .clk(clk), .rst_n(rst_n),
    .fill_valid(fill_valid), .fill_ready(fill_ready), .fill_data(fill_data),
    .rd_req_valid(rd_req_valid), .rd_req_ready(rd_req_ready), .rd_req_idx(rd_req_idx), $wu_port
    .rd_rsp_valid(rd_rsp_valid), .rd_rsp_ready(rd_rsp_ready), .rd_rsp_data(rd_rsp_data),
    $upd_ports
    .shr_valid(shr_valid), .shr_ready(shr_ready), .shr_num(shr_num),
    .credit_valid(credit_valid), .credit_ready(credit_ready), .credit_num(credit_num),
    .status_err(status_err),
    .occ_q(occ_q), .head_q(head_q), .credit_q(credit_q), .credit_acc_q(credit_acc_q)$([ "$sb" = 1 ] && echo ", .pending_q(pending_q)")
  );
  buffet_checker #(.DEPTH($depth), .W($w), .IW($iw), .CW($cw), .SW($sw), .SCOREBOARD($sb)) props (
    .clk(clk), .rst_n(rst_n),
    .fill_valid(fill_valid), .fill_ready(fill_ready), .fill_data(fill_data),
    .rd_req_valid(rd_req_valid), .rd_req_ready(rd_req_ready), .rd_req_idx(rd_req_idx),
    .rd_req_will_update($([ "$sb" = 1 ] && echo rd_req_will_update || echo "1'b0")),
    .rd_rsp_valid(rd_rsp_valid), .rd_rsp_ready(rd_rsp_ready),
    .upd_valid(upd_valid), .upd_ready(upd_ready), .upd_idx(upd_idx),
    .shr_valid(shr_valid), .shr_ready(shr_ready), .shr_num(shr_num),
    .credit_valid(credit_valid), .credit_ready(credit_ready), .credit_num(credit_num),
    .occ_q(occ_q), .head_q(head_q), .credit_q(credit_q), .credit_acc_q(credit_acc_q), .pending_q($pend_conn)
  );
endmodule
SV

(cd "$out" && yosys -q -l yosys.log -p "read_verilog -sv -formal rtl/ram_flop.sv rtl/$name.sv; hierarchy -top $name; proc; \
  expose $name/$(echo "$expose" | sed "s| | $name/|g"); \
  read_verilog -sv -formal $here/buffet_checker.sv formal_top.sv; hierarchy -check -top formal_top; proc; flatten; \
  memory_map; opt -fast; dffunmap; check -assert; write_smt2 -wires formal.smt2") > /dev/null

status=0
(cd "$out" && yosys-smtbmc -s z3 -t "$k" formal.smt2 > bmc.log 2>&1) || status=1
if [ $status = 0 ]; then (cd "$out" && yosys-smtbmc -s z3 -i -t "$k" formal.smt2 > induction.log 2>&1) || status=2; fi
if [ -z "$mutation" ]; then
  case $status in
    0) echo "PASS: $name depth $depth, $k-induction proves P1-P5";;
    1) echo "FAIL: bounded check from reset failed (see $out/bmc.log)"; grep -m3 "Assert failed" "$out/bmc.log" || true; exit 1;;
    2) echo "FAIL: induction step failed at k=$k (see $out/induction.log)"; grep -m3 "Assert failed" "$out/induction.log" || true; exit 1;;
  esac
else
  if [ $status = 0 ]; then echo "FAIL: the broken buffet ($mutation) was proved correct"; exit 1; fi
  log=bmc.log; [ $status = 2 ] && log=induction.log
  echo "PASS: the broken buffet ($mutation) fails the proof: $(grep -m1 -o 'Assert failed in .*' "$out/$log" || echo "see $out/$log")"
fi
