// C++ reference model of buffet composition (buffets paper, Sec. 4.1-4.2): the
// multicast credit vector of a fill side with K targets, and a buffet group,
// an L2 buffet whose reads fill K L1 buffets through that vector. It extends
// the buffet model (sw/buffet/buffet_model.hpp): each level is a BuffetModel,
// and the group adds the credit vector and the elements in flight between the
// levels. It is the spec the generated group (gen/buffet/buffet_group_gen) is
// checked against (tb/buffet_group).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sw/buffet/buffet_model.hpp"

namespace cello::buffet {

// One credit count per target. A transfer to a mask of targets may start only
// while every masked target has a credit, and takes one from each of them; a
// target that lacks credit holds back only the transfers whose mask names it.
class MulticastCredits {
 public:
  explicit MulticastCredits(unsigned targets);
  unsigned targets() const { return static_cast<unsigned>(credits_.size()); }
  unsigned credits(unsigned k) const { return credits_.at(k); }
  // Ready, or NoCredit when a masked target has none (bits at and above
  // targets() are ignored).
  Wait check_send(uint64_t mask) const;
  void send(uint64_t mask);
  void add(unsigned k, unsigned n) { credits_.at(k) += n; }

 private:
  std::vector<unsigned> credits_;
};

// An element read from the L2 and not yet filled into its targets.
struct InFlight {
  uint64_t mask, data;
};

class BuffetGroupModel {
 public:
  // targets >= 1. With one target there is no credit vector: the L2's response
  // waits until the L1 has room (check_deliver()).
  BuffetGroupModel(unsigned l2_size, unsigned l1_size, unsigned targets);

  unsigned targets() const { return static_cast<unsigned>(l1_.size()); }
  BuffetModel& l2() { return l2_; }
  const BuffetModel& l2() const { return l2_; }
  BuffetModel& l1(unsigned k) { return l1_.at(k); }
  const BuffetModel& l1(unsigned k) const { return l1_.at(k); }
  const MulticastCredits& credits() const { return credits_; }
  const std::deque<InFlight>& in_flight() const { return in_flight_; }
  uint64_t all_targets() const { return targets() >= 64 ? ~0ULL : (1ULL << targets()) - 1; }

  // An L2 read for `mask` (one target: mask is ignored and the L1 is the
  // target): the L2's wait, then the credit vector's.
  Wait check_read(uint64_t idx, uint64_t mask) const;
  // Reads the L2, takes the credits and puts the element in flight; returns it.
  uint64_t read(uint64_t idx, uint64_t mask);
  // Whether the oldest element in flight can fill its targets now (with
  // credits it always can: every masked L1 has a slot reserved).
  Wait check_deliver() const;
  // Fills the oldest element in flight into every target of its mask.
  void deliver();
  // Moves n of the credits L1 k owes to the credit vector (the L1's credit
  // port feeds the multicast unit).
  void return_credits(unsigned k, unsigned n);

  // No credit lost or duplicated: for each target, credits in the vector +
  // credits the L1 still owes + slots reserved by elements in flight + the
  // L1's occupancy = the L1's size. Empty when it holds; else which target fails.
  std::string conservation_error() const;
  // Per target, the number of elements filled so far.
  uint64_t fills(unsigned k) const { return fills_.at(k); }

 private:
  BuffetModel l2_;
  std::vector<BuffetModel> l1_;
  MulticastCredits credits_;
  std::deque<InFlight> in_flight_;
  std::vector<uint64_t> fills_;
};

}  // namespace cello::buffet
