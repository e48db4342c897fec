// Issue 30, load: N worker processes × M contexts doing a mix of fetches and small saves on shared
// objects for a while, through the PostgreSQL store and the same mix written directly with
// libpq, in the same run, against the same server:
//
//     URL=$(bash scripts/postgres-scratch.sh start)
//     swift run -c release --package-path Benchmarks PostgreSQLLoadBenchmark --url "$URL" \
//         [--processes 8] [--contexts 4] [--duration 60] [--sides store,libpq,libpq-atomic]
//     bash scripts/postgres-scratch.sh stop
//
// The driver (this executable without --worker) sets up each side's schema (counters at 0,
// empty lists), starts N processes of itself (`--worker side i`, each under the next
// `--worker-prefix` command when given, e.g. `ip netns exec app1`, so they can run on other
// network hosts), waits until every worker has connected and prepared its M contexts, starts
// them together, and collects their reports: acknowledged increments per counter and appends
// per list, operations, latency histograms (p50/p99), conflicts and retries. It then reads the
// database and checks that each counter equals its acknowledged increments and each list holds
// exactly its acknowledged appends (no lost update, no write applied twice).
//
// The mix (`--mix 50,30,20`): fetches (half a counter by a predicate on its name, half the items
// of a list's to-many, fetched by `list == %@`), increments of a shared counter (optimistic: the value the context
// holds plus one, `Z_OPT` checked; 133020 → rollback, refresh, retry), and appends of an item to
// a shared list's to-many. With `--replica URI` the store reads from the standby
// (`PostgreSQLOptionKey.replicas`) and the libpq side sends its fetches there.
import Foundation

let options = LoadOptions(arguments: Array(CommandLine.arguments.dropFirst()))
if let side = options.workerSide {
    runWorker(options, side: side)
} else {
    Driver.run(options)
}
