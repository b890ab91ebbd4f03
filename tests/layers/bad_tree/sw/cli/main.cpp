// Fixture: an include that is not a repository path, and a correct one.
#include "chord/twice.hpp"
#include "sw/score/plan.hpp"
