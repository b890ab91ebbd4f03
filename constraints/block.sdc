# SDC template for one generated CELLO block (a module `cello gen` emits).
# `cello gen` instantiates it for every generated block as DIR/<module>.sdc, and
# `cello area` passes the same text to OpenSTA. Placeholders in @...@:
#   @MODULE@        the block's module name (for the reader only)
#   @PERIOD@        clock period in ns: config "clock_period_ns", or --period
#   @CLOCK@         the clock port (clk in every generated block)
#   @INPUT_DELAY@   arrival of every other input after the clock edge, ns
#   @OUTPUT_DELAY@  time the outputs' receivers need before the next edge, ns
#   @DRIVING_CELL@  liberty cell that drives every input
#   @LOAD@          capacitance on every output, pF
# Both I/O delays default to 20% of the period: a block's neighbour spends that
# much of the cycle in its own logic. See docs/area.md.

# @MODULE@
create_clock -name clk -period @PERIOD@ [get_ports @CLOCK@]
set_input_delay @INPUT_DELAY@ -clock clk [delete_from_list [all_inputs] [get_ports @CLOCK@]]
set_output_delay @OUTPUT_DELAY@ -clock clk [all_outputs]
set_driving_cell -lib_cell @DRIVING_CELL@ [delete_from_list [all_inputs] [get_ports @CLOCK@]]
set_load @LOAD@ [all_outputs]
