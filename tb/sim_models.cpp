// Anchor source of the cello_sim library; the verilated models and their
// drivers come from tb/<block>/cello_models.cmake.
namespace cello::tb {
int sim_models_anchor = 0;
}
