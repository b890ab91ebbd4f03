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
  return {.sram_bytes = a.chord_bytes,
          .line_bytes = a.granule_bytes,
          .chord_entries = a.chord_entries,
          .chord_extents = a.chord_extents,
          .chord_riff = a.riff,
          .chord_victim = a.chord_victim,
          .chord_clean = a.chord_clean,
          .chord_reserve = a.chord_reserve,
          .chord_inplace = a.chord_inplace,
          .chord_claim = a.chord_claim};
}

}  // namespace cello::arch
