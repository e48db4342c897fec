import Foundation
import PersistentStores

/// The store harnesses' property: an input an atomic store accepts loads, saves and loads again
/// to exactly the same graph (nothing is lost or altered on the way). Rejecting an input with
/// any error is a correct answer; crashing, hanging, leaking, or changing data is not.
///
/// Everything per input stays in memory: the input is loaded from memory (`load(data:)`), the
/// store is saved to memory through the same writer a file save runs (`savedData()`), and that
/// is loaded again from memory. Nothing is opened, written or flushed per input.
public enum AtomicRoundTrip {
    /// The folder of this process's scratch files (seeds only): in `/dev/shm` when there is
    /// one, else the temporary folder.
    public static let folder: URL = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let folder = base.appendingPathComponent("persistentstores-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    /// Loads `data` into a new store of type `S` with `load`; when that succeeds, saves the
    /// store to memory with `save`, loads that into another store and requires the same graph.
    /// The stores are named `/memory/<fileName>` in errors; no file is touched.
    public static func check<S: AtomicStore>(
        _ type: S.Type, data: Data, fileName: String, load: (S, Data) throws -> Void, save: (S) throws -> Data
    ) {
        let url = URL(fileURLWithPath: "/memory/" + fileName)
        let store: S
        do {
            store = try newStore(type, url: url)
            try load(store, data)
        } catch {
            return
        }
        let loaded = StoreGraph(store)
        let saved: Data
        do {
            saved = try save(store)
        } catch {
            FuzzDriver.propertyFailed("a graph the \(S.storeType) store loaded cannot be saved: \(error)")
        }
        let reloaded: StoreGraph
        do {
            let again = try newStore(type, url: url)
            try load(again, saved)
            reloaded = StoreGraph(again)
        } catch {
            FuzzDriver.propertyFailed("the \(S.storeType) store cannot load the file it saved: \(error)")
        }
        if loaded != reloaded {
            FuzzDriver.propertyFailed("the \(S.storeType) store's round trip changed the graph:\n\(loaded.firstDifference(from: reloaded))")
        }
    }

    /// The identifier every store the harness makes starts with: a file without one keeps it.
    /// Object IDs intern their store identifier for the life of the process, so a fresh UUID per
    /// input would grow memory with every input and make LeakSanitizer scan the heap after each
    /// one (libFuzzer runs it whenever an input allocates more than it frees).
    public static let storeIdentifier = "00000000-0000-0000-0000-00000000F022"

    /// A new, empty store of type `S` for the fuzz model at `url`.
    static func newStore<S: AtomicStore>(_ type: S.Type, url: URL) throws -> S {
        let store = try S(model: FuzzModel.model, configurationName: nil, url: url, options: [:])
        store.metadata[MetadataKey.storeUUID] = .string(storeIdentifier)
        return store
    }

    /// The bytes of a file of store type `type` holding ``FuzzModel/sampleGraph(in:)``: a seed.
    public static func sampleFiles(type: String, fileName: String) throws -> [Data] {
        let url = folder.appendingPathComponent(fileName)
        removeScratchFiles(of: url)
        defer { removeScratchFiles(of: url) }
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: FuzzModel.model, registry: registry)
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try FuzzModel.sampleGraph(in: context)
        try context.save()
        try coordinator.remove(store)
        return [try Data(contentsOf: url)]
    }

    /// Removes `url` and the companions a store may write beside it.
    public static func removeScratchFiles(of url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal", ".plist"] {
            unlink(url.path + suffix)
        }
    }
}
