// The target that holds the precompiled verilated.h every traced model reuses
// (tb/CMakeLists.txt, cello_verilated_pch); it compiles nothing of its own.
