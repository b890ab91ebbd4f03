#include "sw/buffet/multicast_model.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace cello::buffet {

MulticastCredits::MulticastCredits(unsigned targets) : credits_(targets, 0) {
  if (targets == 0) throw std::invalid_argument("a multicast fill needs at least one target");
}

Wait MulticastCredits::check_send(uint64_t mask) const {
  for (unsigned k = 0; k < targets(); ++k)
    if ((mask >> k & 1) && credits_[k] == 0) return Wait::NoCredit;
  return Wait::Ready;
}

void MulticastCredits::send(uint64_t mask) {
  if (check_send(mask) != Wait::Ready) throw std::logic_error("multicast send without a credit");
  for (unsigned k = 0; k < targets(); ++k)
    if (mask >> k & 1) --credits_[k];
}

BuffetGroupModel::BuffetGroupModel(unsigned l2_size, unsigned l1_size, unsigned targets)
    : l2_(l2_size, false), l1_(targets, BuffetModel(l1_size, false)), credits_(targets), fills_(targets, 0) {}

Wait BuffetGroupModel::check_read(uint64_t idx, uint64_t mask) const {
  Wait w = l2_.check_read(idx);
  if (w != Wait::Ready || targets() == 1) return w;
  return credits_.check_send(mask);
}

uint64_t BuffetGroupModel::read(uint64_t idx, uint64_t mask) {
  if (check_read(idx, mask) != Wait::Ready) throw std::logic_error("group read not ready");
  uint64_t data = l2_.read(idx, false);
  if (targets() == 1) mask = 1;
  else credits_.send(mask);
  in_flight_.push_back({mask & all_targets(), data});
  return data;
}

Wait BuffetGroupModel::check_deliver() const {
  if (in_flight_.empty()) return Wait::NotFilled;
  for (unsigned k = 0; k < targets(); ++k)
    if ((in_flight_.front().mask >> k & 1) && l1_[k].check_fill() != Wait::Ready) return Wait::Full;
  return Wait::Ready;
}

void BuffetGroupModel::deliver() {
  if (check_deliver() != Wait::Ready) throw std::logic_error("delivery to a full L1");
  InFlight e = in_flight_.front();
  in_flight_.pop_front();
  for (unsigned k = 0; k < targets(); ++k)
    if (e.mask >> k & 1) {
      l1_[k].fill(e.data);
      ++fills_[k];
    }
}

void BuffetGroupModel::return_credits(unsigned k, unsigned n) {
  l1_.at(k).take_credits(n);
  credits_.add(k, n);
}

std::string BuffetGroupModel::conservation_error() const {
  if (targets() == 1) return {};  // no credit vector: the L1's credits leave the group
  for (unsigned k = 0; k < targets(); ++k) {
    uint64_t reserved = 0;
    for (const auto& e : in_flight_) reserved += e.mask >> k & 1;
    uint64_t sum = credits_.credits(k) + l1_[k].credits_pending() + reserved + l1_[k].occupancy();
    if (sum != l1_[k].size())
      return fmt::format("target {}: {} credits in the vector + {} owed + {} in flight + {} held = {}, not {}", k,
                         credits_.credits(k), l1_[k].credits_pending(), reserved, l1_[k].occupancy(), sum,
                         l1_[k].size());
  }
  return {};
}

}  // namespace cello::buffet
