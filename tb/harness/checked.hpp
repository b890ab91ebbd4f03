// One way for a Catch2 testbench to run its body: a Failure thrown by a check
// of the harness (or a cello::Error from a reference model) fails the test
// case with its message and the cycle it was found at.
#pragma once

#include <catch2/catch.hpp>

#include "sw/common/error.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/stream.hpp"

// Names `seed` in every failure reported in the rest of the scope.
#define CELLO_SEED_INFO(seed) INFO("seed " << (seed) << " (replay with CELLO_SEED)")

// Declares `rng`, the test case's random source: seeded from CELLO_SEED, else
// from `fallback`, and named in every failure the test case reports.
#define CELLO_SEEDED_RNG(rng, fallback)                       \
  ::cello::tb::Rng rng(::cello::tb::seed_from_env(fallback)); \
  CELLO_SEED_INFO(rng.seed())

namespace cello::tb {

template <class S, class F>
void run_checked(const S& sim, F&& body) {
  try {
    body();
  } catch (const Failure& f) {
    FAIL(f.what() << " at cycle " << sim.cycle());
  } catch (const cello::Error& e) {
    FAIL(e.what() << " at cycle " << sim.cycle());
  }
}

// The same for a bench that holds its simulator as `sim` and its random source
// as `rng`: a failure also names the seed that replays it.
template <class Bench, class F>
  requires requires(Bench& b) {
    b.sim.cycle();
    b.rng.seed();
  }
void run_checked(Bench& b, F&& body) {
  CELLO_SEED_INFO(b.rng.seed());
  run_checked(b.sim, body);
}

}  // namespace cello::tb
