import BenchmarkSupport
import Foundation
import PersistentStores

/// One contender of W7, measured once in a child process of its own so that no contender's
/// heap (millions of freed small objects) slows down the next one. Each prints
/// `<key> <wall seconds> <CPU seconds>` lines and `bytes <key> <file size>` lines.
enum Contender: String, CaseIterable {
    /// The Binary store: N inserts saved through the coordinator, the store's save() alone (a
    /// rewrite), and a load (adding the store).
    case binary
    /// The Binary store with deflate level 1, then level 6.
    case deflate1, deflate6
    /// The Binary file's bytes written and read with `Data`.
    case raw
    /// JSONEncoder/JSONDecoder of equivalent Codable structs.
    case json

    func run(size: Int, folder: URL) throws {
        let dataset = Dataset(persons: size)
        let binaryURL = folder.appendingPathComponent("people.store")
        switch self {
        case .binary:
            try measureBinary(dataset, at: binaryURL, options: [:], prefix: "binary")
        case .deflate1, .deflate6:
            let level: Int64 = self == .deflate1 ? 1 : 6
            let url = folder.appendingPathComponent("people-\(rawValue).store")
            try measureBinary(dataset, at: url, options: [AtomicBinaryStore.compressionOption: .int(level)], prefix: rawValue)
        case .raw:
            if !FileManager.default.fileExists(atPath: binaryURL.path) {
                try measureBinary(dataset, at: binaryURL, options: [:], prefix: nil)
            }
            let bytes = try Data(contentsOf: binaryURL)
            let rawURL = folder.appendingPathComponent("people.raw")
            var write = Timing(name: "raw.write"), read = Timing(name: "raw.read")
            try write.time { try AtomicFileWriter.write(bytes, to: rawURL) }
            var reread = Timing(name: "raw.reread")
            do {
                let readBack = try read.time { try Data(contentsOf: rawURL) }
                guard readBack.count == bytes.count else { fail("raw read") }
            }
            let readBack = try reread.time { try Data(contentsOf: rawURL) }
            guard readBack.count == bytes.count else { fail("raw read") }
            report(write)
            report(read)
            report(reread)
        case .json:
            let url = folder.appendingPathComponent("people.json")
            var save = Timing(name: "json.save"), load = Timing(name: "json.load")
            do {
                let records = dataset.records
                try save.time { try AtomicFileWriter.write(try JSONEncoder().encode(records), to: url) }
            }
            var reload = Timing(name: "json.reload")
            do {
                let decoded = try load.time { try JSONDecoder().decode(Dataset.File.self, from: try Data(contentsOf: url)) }
                guard decoded.persons.count == size else { fail("JSON decode") }
            }
            let decoded = try reload.time { try JSONDecoder().decode(Dataset.File.self, from: try Data(contentsOf: url)) }
            guard decoded.persons.count == size else { fail("JSON decode") }
            report(save)
            report(load)
            report(reload)
            print("bytes json \(fileSize(url))")
        }
        print("rss \(rawValue) \(peakResidentMiB())")
    }

    /// Saves the dataset into a new Binary store at `url` (timing the coordinator's save and a
    /// rewrite of the loaded store), then loads it twice (timing the adds); reports under
    /// `prefix`.
    private func measureBinary(_ dataset: Dataset, at url: URL, options: StoreOptions, prefix: String?) throws {
        let registry = StoreRegistry()
        registry.register(AtomicBinaryStore.self)
        try? FileManager.default.removeItem(at: url)
        var save = Timing(name: "save"), write = Timing(name: "write"), load = Timing(name: "load")
        do {
            let coordinator = PersistentStoreCoordinator(model: Dataset.model, registry: registry)
            let store = try coordinator.addPersistentStore(type: "Binary", at: url, options: options)
            let request = try dataset.insertRequest(for: coordinator)
            try save.time { _ = try coordinator.save(request) }
            // The store's save() alone: a metadata change makes the next save rewrite the file.
            var metadata = try coordinator.metadata(for: store)
            metadata["BenchmarkRun"] = .string(UUID().uuidString)
            try coordinator.setMetadata(metadata, for: store)
            try write.time { _ = try coordinator.save(SaveChangesRequest()) }
        }
        // The first load of the process, then a second one once the first store is gone: the
        // first pays for the fresh memory pages its objects need, the second reuses freed memory.
        var reload = Timing(name: "reload")
        for pass in 0..<2 {
            let coordinator = PersistentStoreCoordinator(model: Dataset.model, registry: registry)
            if pass == 0 {
                try load.time { _ = try coordinator.addPersistentStore(type: "Binary", at: url, options: options) }
            } else {
                try reload.time { _ = try coordinator.addPersistentStore(type: "Binary", at: url, options: options) }
            }
            var request = FetchRequest(entityName: "Person")
            request.resultType = .count
            guard case .count(let count) = try coordinator.execute(request), count == dataset.persons else {
                fail("the Binary store did not load \(dataset.persons) persons")
            }
        }
        guard let prefix else { return }
        for (key, measurement) in [("save", save), ("write", write), ("load", load), ("reload", reload)] {
            report(Timing(name: "\(prefix).\(key)", seconds: measurement.seconds, cpuSeconds: measurement.cpuSeconds))
        }
        print("bytes \(prefix) \(fileSize(url))")
    }

    private func report(_ measurement: Timing) {
        print("\(measurement.name) \(measurement.seconds.first ?? .nan) \(measurement.cpuSeconds.first ?? .nan)")
    }
}

func fileSize(_ url: URL) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int) ?? 0
}

func fail(_ message: String) -> Never {
    print("error: \(message)")
    exit(1)
}
