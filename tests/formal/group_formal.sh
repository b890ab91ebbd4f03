#!/usr/bin/env bash
# Proves the multicast credit-vector properties of group_checker.sv on one
# generated buffet group by temporal induction with Yosys's SAT prover: the
# base case from reset and the induction step, of length up to K_IND.
#   group_formal.sh CELLO OUTDIR NAME TARGETS L2_DEPTH L1_DEPTH K_IND [MUTATION]
# MUTATION names a deliberate bug (see mutate below): the script then expects
# the proof to FAIL and exits 0 only if it does.
set -euo pipefail
cello=$1 out=$2 name=$3 targets=$4 l2=$5 l1=$6 k=$7 mutation=${8:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out" && mkdir -p "$out"
printf '{"name": "%s", "buffet_groups": [{"name": "%s", "targets": %s, "data_width": 1, "l2_depth": %s, "l1_depth": %s}]}\n' \
  "$name" "$name" "$targets" "$l2" "$l1" > "$out/config.json"
"$cello" gen --config "$out/config.json" --out "$out/rtl" > /dev/null
params=$(grep -o '"l2_index_width": *[0-9]*\|"l1_count_width": *[0-9]*' "$out/rtl/manifest.json" | tr -d ' "')
iw2=$(echo "$params" | sed -n 's/l2_index_width://p') cw1=$(echo "$params" | sed -n 's/l1_count_width://p')

mutate() {  # mutate FILE SED-EXPRESSION: fails when the expression changes nothing
  cp "$1" "$1.orig"
  sed -i "$2" "$1"
  if cmp -s "$1" "$1.orig"; then echo "mutation '$mutation' did not apply"; exit 2; fi
}
mc="$out/rtl/${name}_mcast.sv"
case "$mutation" in
  "") ;;
  ignore_mask) mutate "$mc" 's/assign req_ok    = &(~req_mask | has_cr);/assign req_ok    = \&has_cr;/' ;;  # G5
  keep_credit) mutate "$mc" 's/take \&\& req_mask\[k\]}/1'"'"'b0}/' ;;  # G3
  *) echo "unknown mutation $mutation"; exit 2 ;;
esac

# Flatten the group, give the checked registers and nets plain names, expose them.
renames="rename u_mcast.cnt_q mc_cnt; rename u_l2.rsp_valid_q l2_rsp_q; rename u_mcast.u_maskq.cnt_q mq_cnt;"
renames+=" rename u_mcast.mq_mask mq_mask;"
expose="w:mc_cnt w:l2_rsp_q w:mq_cnt w:mq_mask w:l1_fill_valid w:l1_fill_ready w:l2_rd_req_ready"
occ="" cred="" acc=""
for ((t = targets - 1; t >= 0; t--)); do
  renames+=" rename u_l1_$t.occ_q l1_occ_$t; rename u_l1_$t.credit_q l1_cred_$t; rename u_l1_$t.credit_acc_q l1_acc_$t;"
  expose+=" w:l1_occ_$t w:l1_cred_$t w:l1_acc_$t"
  occ+="${occ:+, }l1_occ_$t" cred+="${cred:+, }l1_cred_$t" acc+="${acc:+, }l1_acc_$t"
done
decls="" conns=""
for ((t = 0; t < targets; t++)); do
  decls+="  logic [$((cw1 - 1)):0] l1_occ_$t, l1_cred_$t, l1_acc_$t;"$'\n'
  conns+=", .l1_occ_$t(l1_occ_$t), .l1_cred_$t(l1_cred_$t), .l1_acc_$t(l1_acc_$t)"
done
# The wrapper drives every input of the group freely and puts the checker beside it.
ports=$(sed -n '/^module '"$name"' (/,/^);/p' "$out/rtl/$name.sv" | grep -E '^\s*(input|output)')
inputs=$(echo "$ports" | grep -E '^\s*input' | grep -v -E '\b(clk|rst_n)\b' | sed -E 's/\/\/.*//; s/,\s*$//; s/$/,/')
outputs=$(echo "$ports" | grep -E '^\s*output' | sed -E 's/\/\/.*//; s/^\s*output\s+logic/  logic/; s/,?\s*$/;/')
names=$(echo "$ports" | sed -E 's/\/\/.*//; s/.*\b([a-z_0-9]+),?\s*$/\1/')
cat > "$out/formal_top.sv" <<SV
module formal_top (
  input logic clk, input logic rst_n,
$(echo "$inputs" | sed '$ s/,$//')
);
$outputs
  logic [$((targets * cw1 - 1)):0] mc_cnt;
  logic [$((targets - 1)):0] mq_mask, l1_fill_valid, l1_fill_ready;
  logic [1:0] mq_cnt;
  logic l2_rsp_q, l2_rd_req_ready;
$decls
  $name dut ($(for n in $names; do printf '.%s(%s), ' "$n" "$n"; done)
    .mc_cnt(mc_cnt), .l2_rsp_q(l2_rsp_q), .mq_cnt(mq_cnt), .mq_mask(mq_mask),
    .l1_fill_valid(l1_fill_valid), .l1_fill_ready(l1_fill_ready), .l2_rd_req_ready(l2_rd_req_ready)$conns);
  group_checker #(.K($targets), .L2_DEPTH($l2), .L1_DEPTH($l1), .IW2($iw2), .CW1($cw1)) props (
    .clk(clk), .rst_n(rst_n), .rd_req_valid(rd_req_valid), .rd_req_ready(rd_req_ready), .rd_req_idx(rd_req_idx),
    .rd_req_mask(rd_req_mask), .status_err(status_err), .mc_cnt(mc_cnt),
    .l1_occ({$occ}), .l1_cred({$cred}), .l1_acc({$acc}),
    .l1_fill_valid(l1_fill_valid), .l1_fill_ready(l1_fill_ready), .l2_rd_req_ready(l2_rd_req_ready),
    .l2_rsp_q(l2_rsp_q), .mq_cnt(mq_cnt), .mq_mask(mq_mask));
endmodule
SV

# Yosys's own SAT prover: the base case from every initial state (x-modelled)
# for up to K_IND steps, and the induction step from any defined state. It
# proves these properties in well under a second; yosys-smtbmc with z3 takes
# about a minute on the same netlist.
status=0
(cd "$out" && yosys -l prove.log -p "read_verilog -sv -formal -DSYNTHESIS $(tr '\n' ' ' < rtl/files.f); \
  hierarchy -top $name; proc; flatten; cd $name; $renames cd ..; expose $name/$(echo "$expose" | sed "s| | $name/|g"); \
  read_verilog -sv -formal $here/group_checker.sv formal_top.sv; hierarchy -check -top formal_top; proc; flatten; \
  memory_map; opt; opt_clean; check -assert; \
  sat -tempinduct -tempinduct-def -prove-asserts -set-assumes -set-init-undef -enable_undef -set-def-inputs \
      -seq 1 -maxsteps $k -verify formal_top" > /dev/null 2>&1) || status=1
steps=$(grep -c '^\[base case' "$out/prove.log" || true)
if [ -z "$mutation" ]; then
  if [ $status = 0 ] && grep -q "Induction step proven: SUCCESS" "$out/prove.log"; then
    echo "PASS: $name, $targets targets, induction of length $steps (at most $k) proves G1-G6"
  else
    echo "FAIL: the proof failed (see $out/prove.log)"; grep -m3 -E "failed|ERROR" "$out/prove.log" || true; exit 1
  fi
else
  if [ $status = 0 ]; then echo "FAIL: the broken buffet group ($mutation) was proved correct"; exit 1; fi
  echo "PASS: the broken buffet group ($mutation) fails the proof: $(grep -m1 -o 'model found for base case: FAIL' "$out/prove.log" || echo "induction fails, see $out/prove.log") within $steps steps"
fi
