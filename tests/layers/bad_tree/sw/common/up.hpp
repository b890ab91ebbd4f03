// Fixture: a common header that reaches up into the compiler.
#pragma once
#include "score/plan.hpp"
