import Foundation
import PersistentStores

/// The store harnesses' property: an input an atomic store accepts loads, saves and loads again
/// to exactly the same graph (nothing is lost or altered on the way). Rejecting an input with
/// any error is a correct answer; crashing, hanging, leaking, or changing data is not.
public enum AtomicRoundTrip {
    /// The folder of this process's scratch files: in `/dev/shm` when there is one (saves flush
    /// to memory), else the temporary folder.
    public static let folder: URL = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let folder = base.appendingPathComponent("persistentstores-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    /// Loads `data` into a new store of type `S` with `load`; when that succeeds, saves the
    /// store to a scratch file, loads the file into another store and requires the same graph.
    public static func check<S: AtomicStore>(
        _ type: S.Type, data: Data, fileName: String, load: (S, Data) throws -> Void
    ) {
        let url = folder.appendingPathComponent(fileName)
        defer { removeScratchFiles(of: url) }
        let store: S
        do {
            store = try S(model: FuzzModel.model, configurationName: nil, url: url, options: [:])
            try load(store, data)
        } catch {
            return
        }
        let loaded = StoreGraph(store)
        do {
            try store.save()
        } catch {
            FuzzDriver.propertyFailed("a graph the \(S.storeType) store loaded cannot be saved: \(error)")
        }
        let reloaded: StoreGraph
        do {
            let again = try S(model: FuzzModel.model, configurationName: nil, url: url, options: [:])
            try again.load()
            reloaded = StoreGraph(again)
        } catch {
            FuzzDriver.propertyFailed("the \(S.storeType) store cannot load the file it saved: \(error)")
        }
        if loaded != reloaded {
            FuzzDriver.propertyFailed("the \(S.storeType) store's round trip changed the graph:\n\(loaded.firstDifference(from: reloaded))")
        }
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
