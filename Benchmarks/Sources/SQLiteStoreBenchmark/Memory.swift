import BenchmarkSupport
import BenchmarkSQLite

/// The bytes malloc has handed out and not taken back, in MiB (glibc; 0 elsewhere): what the
/// live objects of a workload occupy, unlike RSS, which keeps the memory earlier runs freed.
func heapInUseMiB() -> Double {
    Double(benchmark_heap_in_use()) / 1_048_576
}
