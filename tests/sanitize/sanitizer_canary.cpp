// Deliberate bugs for the sanitizer canaries (tests/sanitize/CMakeLists.txt).
// The bug is chosen at run time, so the compiler cannot see or remove it.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const char* bug = argv[1];
  volatile int n = argc + 2;  // 4, unknown to the optimiser
  if (std::strcmp(bug, "heap-overflow") == 0) {
    int* p = new int[n];
    p[n] = 1;  // one past the end
    std::printf("%d\n", p[0]);
    delete[] p;
  } else if (std::strcmp(bug, "use-after-free") == 0) {
    int* p = new int[n];
    delete[] p;
    std::printf("%d\n", p[1]);
  } else if (std::strcmp(bug, "leak") == 0) {
    int* p = new int[n];
    p[0] = 1;
    p = nullptr;  // the only pointer is gone
    std::printf("%p\n", static_cast<void*>(p));
  } else if (std::strcmp(bug, "signed-overflow") == 0) {
    volatile int big = INT_MAX;
    std::printf("%d\n", big + n);
  } else {
    return 2;
  }
  return 0;
}
