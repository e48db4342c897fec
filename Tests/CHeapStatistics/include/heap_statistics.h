#ifndef PERSISTENTSTORES_TESTS_HEAP_STATISTICS_H
#define PERSISTENTSTORES_TESTS_HEAP_STATISTICS_H
#include <stddef.h>

/// Bytes malloc has handed out and not taken back (glibc's mallinfo2); 0 where unknown.
size_t heap_statistics_in_use(void);

/// The usable size of the heap block `pointer` points at (glibc's malloc_usable_size); 0 where
/// unknown.
size_t heap_statistics_block_size(const void *pointer);

#endif
