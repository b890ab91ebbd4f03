#include "sw/arch/arch.hpp"

namespace cello::arch {

score::Target target_of(const Arch& a) {
  score::Target t;
  t.pe_rows = a.pe_rows;
  t.pe_cols = a.pe_cols;
  t.rf_words = int64_t{a.rf_rows} * a.pe_cols;
  t.pipeline_buffer_words = a.pipeline_buffer_words;
  t.chord_words = static_cast<int64_t>(a.chord_bytes / a.word_bytes);
  t.word_bytes = static_cast<int>(a.word_bytes);
  return t;
}

traffic::ModelParams model_params_of(const Arch& a) {
  traffic::ModelParams p;
  p.sram_bytes = a.chord_bytes;
  p.line_bytes = a.granule_bytes;
  p.chord_entries = a.chord_entries;
  p.chord_extents = a.chord_extents;
  p.chord_riff = a.riff;
  return p;
}

}  // namespace cello::arch
