#ifndef PERSISTENTSTORES_BENCHMARKS_SQLITE_SHIM_H
#define PERSISTENTSTORES_BENCHMARKS_SQLITE_SHIM_H
#include <sqlite3.h>
#include <stddef.h>

#if defined(__linux__)
#include <malloc.h>
/// Bytes malloc has handed out and not taken back (glibc's mallinfo2; 0 elsewhere).
static inline size_t benchmark_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
#else
static inline size_t benchmark_heap_in_use(void) { return 0; }
#endif

#endif
