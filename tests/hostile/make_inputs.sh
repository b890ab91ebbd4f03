#!/usr/bin/env bash
# Writes the hostile inputs of tests/hostile/CMakeLists.txt into DIR.
#   make_inputs.sh DIR
set -euo pipefail
d=$1
rm -rf "$d" && mkdir -p "$d/adir"
cd "$d"
# JSON nested 100000 levels deep (a stack-overflow crash before the fix).
{ printf '{"buffets": '; head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; printf '}\n'; } > deep.json
printf '{"buffets": [{"depth": 1e400}]}\n' > number.json
# A top whose load reuse window is larger than the unit allows.
printf '{"mac_arrays": [{"name": "mac"}], "pipeline_buffers": [{"name": "pb"}], "top": {"mac_array": "mac", "pipeline_buffer": "pb", "load_window": 33}}\n' > big_window.json
printf '{"buffets": [{"name": "module"}]}\n' > kw_module.json
printf '{"buffets": [{"name": "logic"}]}\n' > kw_logic.json
printf '{"buffets": [{"name": "endmodule"}]}\n' > kw_endmodule.json
printf '{"buffets": [{"name": "always"}]}\n' > kw_always.json
printf '{"buffets": [{"name": "fp32_fma"}]}\n' > prim_fma.json
printf '{"buffets": [{"name": "ram_flop"}]}\n' > prim_flop.json
printf '{"buffets": [{"name": "ram_sram"}]}\n' > prim_sram.json
printf '{"name": "a\\nb", "buffets": []}\n' > newline_name.json
printf '{"buffets": [{"de\\u0000pth": 16}]}\n' > nul_key.json
printf '{"pe_rows": 9223372036854775808}\n' > target_2p63.json
{ printf '{"pe_rows": '; head -c 50000 /dev/zero | tr '\0' '['; head -c 50000 /dev/zero | tr '\0' ']'; printf '}\n'; } > deep_target.json
# Matrix Market headers that declare more than they hold.
printf '%%%%MatrixMarket matrix coordinate real general\n100000 100000 1000000000\n1 1 1\n' > big_count.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n100000 100000 400000000\n1 1 1\n' > big_count_one.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n1073741824 1073741824 1\n1 1 1\n' > big_rows.mtx
# A gzip bomb (100 MB of one repeated line, about 100 KB packed) and trailing garbage.
{ printf '%%%%MatrixMarket matrix coordinate real general\n'; yes '% padding padding padding padding padding padding' | head -c 100000000 || true; } | gzip -9 > bomb.mtx.gz
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n' | gzip > garbage.mtx.gz
printf 'this is not gzip' >> garbage.mtx.gz
# .cello DAGs.
printf 'rank m = 4\ninput X[m]\nop a: Y[m] = host solve()\noutput Y\n' > host_noargs.cello
printf 'rank m = 4\ninput X[m]\nop a: Y[m] = host frob(X[m], X[m])\noutput Y\n' > host_frob.cello
{
  idx=""
  for i in $(seq 1 64); do printf 'rank r%d = 1099511627776\n' "$i"; idx="$idx${idx:+,}r$i"; done
  printf 'input A[%s]\nop a: Z[r1] = A[%s]\noutput Z\n' "$idx" "$idx"
} > huge_ranks.cello
{ printf 'rank m = 4\ninput X[m]\nop a: Y[m] = '; head -c 1000000 /dev/zero | tr '\0' 'q'; printf '[m]\noutput Y\n'; } > long_line.cello
printf 'rank m = 1048576\nrank k = 1048576\nrank n = 1048576\ninput A[m,k]\ninput B[k,n]\nop big: Z[m,n] = A[m,k] * B[k,n]\noutput Z\n' > huge_macs.cello
printf '{"buffets": [{"depth": 1048576, "data_width": 4096}]}\n' > big_buffet.json
: > empty.cello
touch plainfile
# Outputs that name an input, and files that are not regular.
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 4\n1 1 1\n2 2 1\n3 3 1\n4 4 1\n' > in.mtx
ln -s in.mtx link_to_in.json
mkdir -p sub od
printf '{}\n' > od/schedule.json
mkfifo fifo
# Size caps, from the size alone: sparse files, so nothing is written.
truncate -s 5G huge_stream.bin
truncate -s 300M huge_asm.txt
# Size lines of 2^27 and 2^30 rows with one entry (8 to 10 GB allocated before the fix).
printf '%%%%MatrixMarket matrix coordinate real general\n134217728 134217728 1\n1 1 1\n' > rows_2p27.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n1073741824 1073741824 1\n1 1 1\n' > rows_2p30.mtx
printf 'rank m = 4\nrank k = 4\nrank n = 2\ninput A[m,k] csr nnz=4\ninput B[k,n]\nop a: Z[m,n] = A[m,k] * B[k,n]\noutput Z\n' > csr4.cello
