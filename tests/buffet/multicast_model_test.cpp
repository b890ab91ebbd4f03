#include <catch2/catch.hpp>

#include <random>

#include "sw/buffet/multicast_model.hpp"

using cello::buffet::BuffetGroupModel;
using cello::buffet::MulticastCredits;
using cello::buffet::Wait;

TEST_CASE("a transfer waits only for the masked targets' credits") {
  MulticastCredits c(3);
  CHECK(c.check_send(0b001) == Wait::NoCredit);
  c.add(0, 1);
  c.add(2, 2);
  CHECK(c.check_send(0b001) == Wait::Ready);
  CHECK(c.check_send(0b101) == Wait::Ready);
  CHECK(c.check_send(0b010) == Wait::NoCredit);  // target 1 has none
  CHECK(c.check_send(0b111) == Wait::NoCredit);
  CHECK(c.check_send(0b1000) == Wait::Ready);  // bits past the targets are ignored
  c.send(0b101);
  CHECK(c.credits(0) == 0);
  CHECK(c.credits(1) == 0);
  CHECK(c.credits(2) == 1);
  CHECK_THROWS(c.send(0b001));
}

TEST_CASE("a group delivers one L2 read to every masked L1 and conserves credits") {
  BuffetGroupModel g(4, 2, 3);
  for (unsigned k = 0; k < 3; ++k) g.return_credits(k, 2);  // each L1's reset credits reach the vector
  CHECK(g.conservation_error().empty());
  g.l2().fill(7);
  g.l2().fill(8);
  CHECK(g.check_read(0, 0b011) == Wait::Ready);
  CHECK(g.read(0, 0b011) == 7);
  CHECK(g.conservation_error().empty());  // the reserved slots count while in flight
  g.deliver();
  CHECK(g.l1(0).occupancy() == 1);
  CHECK(g.l1(1).occupancy() == 1);
  CHECK(g.l1(2).occupancy() == 0);
  CHECK(g.l1(0).read(0, false) == 7);
  CHECK(g.l1(1).read(0, false) == 7);
  g.read(1, 0b011);
  g.deliver();
  // L1 0 and 1 are full: a read naming either waits, one naming only L1 2 does not.
  CHECK(g.check_read(0, 0b001) == Wait::NoCredit);
  CHECK(g.check_read(0, 0b110) == Wait::NoCredit);
  CHECK(g.check_read(0, 0b100) == Wait::Ready);
  CHECK(g.check_read(2, 0b100) == Wait::NotFilled);  // the L2's own wait comes first
  g.l1(0).shrink(1);
  CHECK(g.conservation_error().empty());  // the credit is owed by L1 0 until it reaches the vector
  g.return_credits(0, 1);
  CHECK(g.check_read(0, 0b001) == Wait::Ready);
  CHECK(g.fills(0) == 2);
  CHECK(g.fills(2) == 0);
}

TEST_CASE("random traffic keeps the credits of every target conserved") {
  std::mt19937_64 rng(5);
  BuffetGroupModel g(8, 3, 4);
  for (unsigned k = 0; k < 4; ++k) g.return_credits(k, 3);
  uint64_t data = 0;
  for (int i = 0; i < 20000; ++i) {
    switch (rng() % 5) {
      case 0:
        if (g.l2().check_fill() == Wait::Ready) g.l2().fill(data++);
        break;
      case 1: {
        uint64_t idx = rng() % 8, mask = rng() % 16;
        if (g.check_read(idx, mask) == Wait::Ready) g.read(idx, mask);
        break;
      }
      case 2:
        if (g.check_deliver() == Wait::Ready) g.deliver();
        break;
      case 3: {
        unsigned k = static_cast<unsigned>(rng() % 4);
        uint64_t n = rng() % 4;
        if (g.l1(k).check_shrink(n) == Wait::Ready) g.l1(k).shrink(n);
        g.return_credits(k, g.l1(k).credits_pending());
        break;
      }
      default: {
        uint64_t n = rng() % 3;
        if (g.l2().check_shrink(n) == Wait::Ready) g.l2().shrink(n);
        break;
      }
    }
    REQUIRE(g.conservation_error().empty());
    // With credits, a delivery never waits for room.
    if (!g.in_flight().empty()) REQUIRE(g.check_deliver() == Wait::Ready);
  }
}

TEST_CASE("one target: no credit vector, the L1's room gates delivery") {
  BuffetGroupModel g(4, 1, 1);
  g.l2().fill(1);
  g.l2().fill(2);
  CHECK(g.check_read(0, 0) == Wait::Ready);  // the mask is ignored
  g.read(0, 0);
  g.deliver();
  g.read(1, 0);
  CHECK(g.check_deliver() == Wait::Full);  // the L1 holds one element
  g.l1(0).shrink(1);
  CHECK(g.check_deliver() == Wait::Ready);
}
