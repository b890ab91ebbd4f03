// CHORD on the top's datapath (docs/top.md, "CHORD on the datapath"): the
// CHORD block and the four parts around it (command unit, units port, DRAM
// adapter, router) instantiated and wired into the top. Only for a top whose
// CHORD passes chord_on_datapath() (gen/top/top_config.hpp).
//
// What the top's own wiring (top_gen.cpp) takes from here, per read unit u and
// the store unit: `<u>_to_chord` (this access goes to CHORD, not the arbiter),
// the units port's `cp_r_req_ready`, `cp_r_rsp_*`, `cp_w_req_ready` and
// `cp_w_rsp_valid`, the DRAM adapter's `cd_d_req_*` / `cd_d_rsp_*` as one more
// arbiter client, and `chord_quiet`, `chord_err`, `chord_proto` for done and
// the status word, and `<u>_fill_wait` (a fill read that must wait for a fill
// credit). The top's DRAM responses pass through the fill stage here
// (`fs_rsp_*` into the arbiter), which queues a filling operand's granules for
// CHORD.
#pragma once

#include <string>
#include <vector>

#include "gen/design.hpp"
#include "gen/sv_module.hpp"

namespace cello::gen {

struct ChordDatapathShape {
  std::string chord_module;  // the CHORD block
  std::string cmd_module, port_module, dram_module, route_module;
  int addr_bits = 30;        // byte address
  int granule_bytes = 16;
  int dram_tag_bits = 9;     // the top's DRAM tag: {client, client tag}
  int client_bits = 3;       // the arbiter's client field of a tag
  int unit_tag_bits = 6;     // a load unit's tag, in the low bits of its clients' tags
  int id_bits = 16;          // CHORD's ids
  int fill_queue = 64;       // fills in flight or waiting for CHORD's write port (a power of two)
  std::vector<std::string> read_units;  // the units port's clients, in order
  std::vector<int> non_fill_clients;    // arbiter clients whose responses are never fills (store, CHORD's adapter)
};

// The top's ports for CHORD's counters and per-access monitors (chord_cnt_*,
// chord_mon_*), for testbenches and `cello sim`.
void chord_datapath_ports(SvModule& top, const SvModule& chord);

// Declares, instantiates and wires CHORD and its parts in `top`.
void chord_datapath(Design& design, SvModule& top, const ChordDatapathShape& s);

}  // namespace cello::gen
