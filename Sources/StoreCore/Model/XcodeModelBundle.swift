import Foundation

/// A versioned Xcode data model: a `.xcdatamodeld` folder holding one `.xcdatamodel` per model
/// version and a `.xccurrentversion` property list naming the current one.
///
/// ```swift
/// let bundle = try XcodeModelBundle(contentsOf: URL(fileURLWithPath: "Model.xcdatamodeld"))
/// bundle.versionNames          // ["Model", "Model 2", "Model 3"]
/// bundle.currentVersionName    // "Model 3"
/// let current = try bundle.currentModel()
/// let all = try bundle.allModels()   // version name → model
/// ```
///
/// Version names are the `.xcdatamodel` folder names without the extension, sorted the way
/// Finder sorts them ("Model 2" before "Model 10"). When `.xccurrentversion` is missing, a
/// bundle with a single version uses it; with several versions that is an error.
public struct XcodeModelBundle: Sendable, Hashable {
    /// The `.xcdatamodeld` folder.
    public let url: URL
    /// The version names, in numeric order.
    public let versionNames: [String]
    /// The version `.xccurrentversion` names.
    public let currentVersionName: String

    /// Lists the versions of the bundle at `url`; reads no model yet. Throws a 134060
    /// ``StoreError`` naming the folder when it is not a readable model bundle.
    public init(contentsOf url: URL) throws {
        self.url = url
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw StoreError(
                .coreData, "Cannot read the Xcode model bundle \(url.path): \(error.localizedDescription)", fileURL: url)
        }
        let names = entries.filter { $0.hasSuffix(".xcdatamodel") && !$0.hasPrefix(".") }
            .map { String($0.dropLast(".xcdatamodel".count)) }
            .sorted { $0.compare($1, options: [.numeric]) == .orderedAscending }
        guard !names.isEmpty else {
            throw StoreError(.coreData, "The Xcode model bundle \(url.path) holds no .xcdatamodel version", fileURL: url)
        }
        self.versionNames = names

        let versionFile = url.appendingPathComponent(".xccurrentversion")
        if FileManager.default.fileExists(atPath: versionFile.path) {
            let data = try? Data(contentsOf: versionFile)
            if let data, case .tooLarge(let budget) = BinaryPropertyListCheck.verdict(data) {
                throw StoreError(
                    .coreData,
                    "Cannot read \(versionFile.path): \(BinaryPropertyListCheck.tooLargeReason(budget: budget))",
                    fileURL: versionFile)
            }
            guard let data, BinaryPropertyListCheck.isAcceptable(data),
                let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil),
                let dictionary = plist as? [String: Any], let current = dictionary["_XCCurrentVersionName"] as? String
            else {
                throw StoreError(
                    .coreData, "Cannot read \(versionFile.path): expected a property list with _XCCurrentVersionName",
                    fileURL: versionFile)
            }
            let name = current.hasSuffix(".xcdatamodel") ? String(current.dropLast(".xcdatamodel".count)) : current
            guard names.contains(name) else {
                throw StoreError(
                    .coreData,
                    "\(versionFile.path) names version \"\(current)\", which the bundle does not hold (versions: \(names.joined(separator: ", ")))",
                    fileURL: versionFile)
            }
            self.currentVersionName = name
        } else if names.count == 1 {
            self.currentVersionName = names[0]
        } else {
            throw StoreError(
                .coreData,
                "The Xcode model bundle \(url.path) has \(names.count) versions and no .xccurrentversion to say which is current",
                fileURL: url)
        }
    }

    /// The model of one version; 134060 when there is no such version or it does not load.
    public func model(version name: String) throws -> ObjectModel {
        guard versionNames.contains(name) else {
            throw StoreError(
                .coreData,
                "The Xcode model bundle \(url.path) has no version \"\(name)\" (versions: \(versionNames.joined(separator: ", ")))",
                fileURL: url)
        }
        return try ObjectModel(contentsOf: url.appendingPathComponent(name + ".xcdatamodel"))
    }

    /// The current version's model.
    public func currentModel() throws -> ObjectModel { try model(version: currentVersionName) }

    /// Every version's model, by version name.
    public func allModels() throws -> [String: ObjectModel] {
        var models: [String: ObjectModel] = [:]
        for name in versionNames { models[name] = try model(version: name) }
        return models
    }
}
