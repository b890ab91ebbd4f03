#include "tb/buffet_group/group_program.hpp"

#include <algorithm>

namespace cello::tb {

uint64_t GroupProgram::reads() const {
  return static_cast<uint64_t>(std::count_if(ops.begin(), ops.end(), [](const GroupOp& o) { return o.kind == GroupOp::Read; }));
}

uint64_t GroupProgram::reads_for(unsigned target) const {
  uint64_t n = 0;
  for (const auto& o : ops) n += o.kind == GroupOp::Read && (o.mask >> target & 1);
  return n;
}

namespace {
uint64_t pick_mask(unsigned targets, MaskMix mix, Rng& rng) {
  const uint64_t all = targets >= 64 ? ~0ULL : (1ULL << targets) - 1;
  unsigned style = mix == MaskMix::Unicast ? 0 : mix == MaskMix::Broadcast ? 1 : static_cast<unsigned>(rng.below(3));
  if (style == 0) return 1ULL << rng.below(targets);
  if (style == 1) return all;
  uint64_t m = 0;
  while (m == 0) m = rng.bits(static_cast<int>(targets)) & all;
  return m;
}
}  // namespace

GroupProgram random_l2_program(unsigned l2_size, unsigned targets, uint64_t n, MaskMix mix, double shrink_rate,
                               Rng& rng) {
  GroupProgram p;
  for (uint64_t i = 0; i < n; ++i) {
    p.read(rng.below(l2_size), pick_mask(targets, mix, rng));
    if (rng.chance(shrink_rate)) p.shrink(1 + rng.below(l2_size));
  }
  return p;
}

GroupProgram random_l1_program(unsigned l1_size, uint64_t elements, double shrink_rate, Rng& rng) {
  GroupProgram p;
  uint64_t shrunk = 0;
  const uint64_t reads_only = shrink_rate <= 0 ? std::min<uint64_t>(elements, l1_size) * 3 : 0;
  for (uint64_t i = 0; shrink_rate <= 0 && i < reads_only; ++i) p.read(rng.below(std::min<uint64_t>(elements, l1_size)));
  while (shrink_rate > 0 && shrunk < elements) {
    uint64_t win = std::min<uint64_t>(elements - shrunk, l1_size);
    if (rng.chance(shrink_rate)) {
      uint64_t n = 1 + rng.below(win);
      p.shrink(n);
      shrunk += n;
    } else {
      p.read(rng.below(win));
    }
  }
  return p;
}

}  // namespace cello::tb
