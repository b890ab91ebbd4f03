// Fixture: a common header that reaches up into the compiler.
#pragma once
#include "sw/score/plan.hpp"
