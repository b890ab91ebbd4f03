// Ready/valid agents with seeded random stalls.
//
// Source<T>: offers queued items. Once it raises valid it keeps valid and the
// item unchanged until the handshake (valid never waits for ready, data holds).
// Sink: raises ready with a given probability each cycle.
// HoldChecker<T>: checks that a DUT output obeys the same rule.
#pragma once

#include <deque>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tb/harness/rng.hpp"

namespace cello::tb {

// Thrown by harness checks; the testbench adds seed and cycle to the message.
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class T>
class Source {
 public:
  Source(Rng& rng, double rate) : rng_(rng), rate_(rate) {}
  void set_rate(double rate) { rate_ = rate; }
  void push(const T& item) { queue_.push_back(item); }
  size_t pending() const { return queue_.size() + (valid_ ? 1 : 0); }

  // Decides valid for this cycle; call before settle().
  bool drive() {
    if (!valid_ && !queue_.empty() && rng_.chance(rate_)) {
      current_ = queue_.front();
      queue_.pop_front();
      valid_ = true;
    }
    return valid_;
  }
  // Offers a specific item now (for agents that decide items cycle by cycle).
  bool valid() const { return valid_; }
  const T& item() const { return current_; }
  // Call after sampling the handshake; returns true when the item was taken.
  bool complete(bool ready) {
    if (valid_ && ready) {
      valid_ = false;
      return true;
    }
    return false;
  }

 private:
  Rng& rng_;
  double rate_;
  std::deque<T> queue_;
  T current_{};
  bool valid_ = false;
};

class Sink {
 public:
  Sink(Rng& rng, double rate) : rng_(rng), rate_(rate) {}
  void set_rate(double rate) { rate_ = rate; }
  bool drive() { return ready_ = rng_.chance(rate_); }
  bool ready() const { return ready_; }

 private:
  Rng& rng_;
  double rate_;
  bool ready_ = false;
};

template <class T>
class HoldChecker {
 public:
  explicit HoldChecker(std::string port) : port_(std::move(port)) {}
  // Call once per cycle with the settled values.
  void sample(bool valid, bool ready, const T& data) {
    if (held_) {
      if (!valid) throw Failure(port_ + ": valid dropped before the handshake");
      if (!(data == *held_)) throw Failure(port_ + ": data changed while valid && !ready");
    }
    held_.reset();
    if (valid && !ready) held_ = data;
  }

 private:
  std::string port_;
  std::optional<T> held_;
};

}  // namespace cello::tb
