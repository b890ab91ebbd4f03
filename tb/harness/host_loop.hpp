// The host side of HOST commands in a top testbench (docs/top.md). The top
// raises host_req with the HOST record's index on host_record and holds both
// until host_ack; it drops host_req the cycle after the acknowledgement. When
// the request rises the loop reads the record's operands a and b from the DRAM
// image, computes `out` with the executor's fp32 functions (exec::host_value),
// writes it into the image, and pulses host_ack for one cycle `latency` cycles
// after the request's first cycle (at the earliest the next cycle). A request for a record that is not HOST, or a dropped request, is a
// protocol failure. Its DRAM traffic goes to `on_access` (address, bytes,
// write): each operand's region read once, the result's region written, as the
// executor counts a HOST op.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "sw/exec/check.hpp"
#include "sw/exec/executor.hpp"
#include "tb/harness/stream.hpp"
#include "sw/stream/format.hpp"

namespace cello::tb {

class HostLoop {
 public:
  using Access = std::function<void(uint64_t addr, uint64_t bytes, bool write)>;
  HostLoop(const stream::Stream& s, const std::vector<exec::TensorDesc>& tensors, std::vector<uint8_t>& image,
           uint64_t latency, Access on_access = {})
      : s_(s), tensors_(tensors), image_(image), latency_(latency), on_access_(std::move(on_access)) {}

  // Before settle(): host_ack for this cycle.
  bool drive() const { return state_ == State::Busy && wait_ == 0; }

  // After settle(): the top's host_req and host_record this cycle.
  void sample(bool req, uint64_t record) {
    switch (state_) {
      case State::Idle:
        if (req) start(record);
        break;
      case State::Busy:
        if (!req) throw Failure(fmt::format("host_req dropped before host_ack (HOST record {})", record_));
        if (record != record_) throw Failure(fmt::format("host_record changed from {} to {} while waiting", record_, record));
        if (wait_ == 0) {
          state_ = State::Acked;  // the acknowledgement happened this cycle
          ++served_;
        } else {
          --wait_;
        }
        break;
      case State::Acked:
        if (req) throw Failure(fmt::format("host_req still high the cycle after host_ack (HOST record {})", record_));
        state_ = State::Idle;
        break;
    }
  }

  uint64_t served() const { return served_; }
  bool busy() const { return state_ == State::Busy; }

 private:
  enum class State { Idle, Busy, Acked };

  const exec::TensorDesc& tensor(uint64_t id) const {
    if (id >= tensors_.size() || !tensors_[id].described) throw Failure(fmt::format("HOST names tensor {} that is not described", id));
    return tensors_[id];
  }

  void start(uint64_t record) {
    if (record >= s_.records.size() || s_.records[record].op() != stream::Opcode::Host)
      throw Failure(fmt::format("host_req for record {}, which is not a HOST command", record));
    const stream::Record& r = s_.records[record];
    const auto& out = tensor(r.field("out")), &a = tensor(r.field("a")), &b = tensor(r.field("b"));
    const auto fn = static_cast<stream::HostFn>(r.field("fn"));
    exec::write_dense(image_, out, exec::host_value(fn, exec::read_dense(image_, a), a, exec::read_dense(image_, b), b));
    if (on_access_) {
      on_access_(a.base, a.bytes, false);
      if (r.field("b") != r.field("a")) on_access_(b.base, b.bytes, false);
      on_access_(out.base, out.bytes, true);
    }
    record_ = record;
    wait_ = latency_ > 0 ? latency_ - 1 : 0;
    state_ = State::Busy;
  }

  const stream::Stream& s_;
  const std::vector<exec::TensorDesc>& tensors_;
  std::vector<uint8_t>& image_;
  uint64_t latency_;
  Access on_access_;
  State state_ = State::Idle;
  uint64_t wait_ = 0, record_ = 0, served_ = 0;
};

}  // namespace cello::tb
