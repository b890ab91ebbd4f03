// Fixture: an include that resolves by search order, and a correct one.
#include "chord/twice.hpp"
#include "score/plan.hpp"
