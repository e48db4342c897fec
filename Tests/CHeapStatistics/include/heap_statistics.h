#ifndef PERSISTENTSTORES_TESTS_HEAP_STATISTICS_H
#define PERSISTENTSTORES_TESTS_HEAP_STATISTICS_H
#include <stddef.h>

/// The usable size of the heap block `pointer` points at (glibc's malloc_usable_size); 0 where
/// unknown.
size_t heap_statistics_block_size(const void *pointer);

#endif
