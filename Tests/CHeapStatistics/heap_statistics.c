#include "heap_statistics.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
size_t heap_statistics_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
#else
size_t heap_statistics_in_use(void) { return 0; }
#endif

// Included first: <malloc.h> (through <features.h>) defines __GLIBC__, which the test reads.
#if defined(__linux__)
#include <malloc.h>
#endif
#if defined(__GLIBC__)
size_t heap_statistics_block_size(const void *pointer) { return malloc_usable_size((void *)pointer); }
#else
size_t heap_statistics_block_size(const void *pointer) { (void)pointer; return 0; }
#endif
