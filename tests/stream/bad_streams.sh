#!/usr/bin/env bash
# CLI refusals of bad command streams: each case must exit 2 with exactly one
# line "cello: error: <file>: <place>: <reason>" naming the record, and nothing
# may be written or run. Usage: bad_streams.sh CELLO_BIN WORK_DIR
set -euo pipefail
cello=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cd "$work"
"$cello" compile --workload cg --grid 10 --n 2 --iters 1 --out good >/dev/null
cp good/commands.bin good.bin
"$cello" exec --stream good.bin --image good/image.bin >/dev/null   # the untouched stream runs

fails=0
expect() {  # expect NAME REGEX COMMAND...
  local name=$1 regex=$2
  shift 2
  local out code=0
  out=$("$@" 2>&1 >/dev/null) || code=$?
  local lines
  lines=$(printf '%s\n' "$out" | grep -c . || true)
  if [ "$code" -ne 2 ] || [ "$lines" -ne 1 ] || ! printf '%s' "$out" | grep -Eq "^cello: error: $regex"; then
    echo "FAIL $name: exit $code, $lines lines: $out"
    fails=$((fails + 1))
  else
    echo "ok   $name: $out"
  fi
}
patch_byte() {  # patch_byte IN OUT OFFSET HEXBYTE
  cp "$1" "$2"
  printf "\\x$4" | dd of="$2" bs=1 seek="$3" conv=notrunc status=none
}
exec_stream() { "$cello" exec --stream "$1" --image good/image.bin; }

size=$(stat -c %s good.bin)
head -c $((size - 7)) good.bin >truncated.bin
expect truncated "truncated\.bin: header: header says [0-9]+ records but .*truncated one\)$" exec_stream truncated.bin
patch_byte good.bin magic.bin 0 58
expect "wrong magic" "magic\.bin: header: wrong magic" "$cello" disasm magic.bin
patch_byte good.bin version.bin 8 07
expect "unknown version" "version\.bin: header: format version 7 is not supported" exec_stream version.bin
patch_byte good.bin hash.bin 16 00
expect "config hash" "hash\.bin: header: compiled for hardware config [0-9a-f]{16} but the config is [0-9a-f]{16}$" exec_stream hash.bin
patch_byte good.bin opcode.bin $((48 + 32 * 2)) 7e
expect "unknown opcode" "opcode\.bin: record 2: unknown opcode 0x7e$" exec_stream opcode.bin

# Text edits, assembled back (the assembler accepts what the decoder accepts).
"$cello" disasm good.bin >good.txt
edit() {  # edit NAME SED-EXPR: good.txt -> NAME.bin
  sed -E "$2" good.txt >"$1.txt"
  "$cello" asm "$1.txt" -o "$1.bin" >/dev/null
}
edit outside "0,/TENSOR/s/base=0x[0-9a-f]+/base=0xffffff00/"
expect "address outside the image" "outside\.bin: record 0: tensor 0: .* is outside the [0-9]+-byte DRAM image \(status: bad_address\)$" exec_stream outside.bin
first_base=$(grep -m1 -oE 'base=0x[0-9a-f]+' good.txt)
edit overlap "0,/TENSOR.*id=1 /s/(TENSOR.*id=1 .*)base=0x[0-9a-f]+/\1$first_base/"
expect "overlapping regions" "overlap\.bin: memory layout: tensor [0-9]+ .* share DRAM bytes while both are live \(status: bad_address\)$" exec_stream overlap.bin
edit undescribed "0,/SPMM/s/(SPMM.*) b=[0-9]+/\1 b=4000/"
expect "operand never described" "undescribed\.bin: record [0-9]+: b tensor 4000 was never described \(status: bad_tensor\)$" exec_stream undescribed.bin
expect "field out of range (asm)" "range\.txt: line [0-9]+: rows = 99999999999 is outside 1\.\.4294967295$" \
  sh -c "sed -E '0,/rows=[0-9]+/s/rows=[0-9]+/rows=99999999999/' good.txt >range.txt && '$cello' asm range.txt -o range.bin"
patch_byte good.bin field.bin $((48 + 4)) 80
expect "field out of range (binary)" "field\.bin: record 0: TENSOR field flags = 0x80 sets undefined bits$" exec_stream field.bin

echo "$fails failed"
[ "$fails" -eq 0 ]
