// In-order transaction scoreboard: expected items are queued as the reference
// model produces them and each DUT output must match the oldest one.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <deque>
#include <string>

#include "tb/harness/stream.hpp"

namespace cello::tb {

template <class T>
class Scoreboard {
 public:
  explicit Scoreboard(std::string what) : what_(std::move(what)) {}
  void expect(const T& item) { expected_.push_back(item); }
  // Compares a DUT transaction with the oldest expectation.
  void check(const T& actual) {
    if (expected_.empty()) throw Failure(fmt::format("{}: unexpected transaction {}", what_, actual));
    if (!(actual == expected_.front()))
      throw Failure(fmt::format("{} #{}: got {}, expected {}", what_, matched_, actual, expected_.front()));
    expected_.pop_front();
    ++matched_;
  }
  size_t outstanding() const { return expected_.size(); }
  uint64_t matched() const { return matched_; }

 private:
  std::string what_;
  std::deque<T> expected_;
  uint64_t matched_ = 0;
};

}  // namespace cello::tb
