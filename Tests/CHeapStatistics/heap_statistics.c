#include "heap_statistics.h"

// Included first: <malloc.h> (through <features.h>) defines __GLIBC__, which the test reads.
#if defined(__linux__)
#include <malloc.h>
#endif
#if defined(__GLIBC__)
size_t heap_statistics_block_size(const void *pointer) { return malloc_usable_size((void *)pointer); }
#else
size_t heap_statistics_block_size(const void *pointer) { (void)pointer; return 0; }
#endif
