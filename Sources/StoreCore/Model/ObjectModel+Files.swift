import Foundation

extension ObjectModel {
    /// Reads a model from a file or folder:
    /// - an Xcode `.xcdatamodeld` bundle: its current version (see ``XcodeModelBundle`` for the
    ///   others);
    /// - an Xcode `.xcdatamodel` folder: its `contents` XML;
    /// - a `contents` file itself (any other file that is not JSON is read as Xcode XML);
    /// - a `.json` file: the form ``jsonData()`` writes.
    ///
    /// ```swift
    /// let model = try ObjectModel(contentsOf: URL(fileURLWithPath: "Model.xcdatamodeld"))
    /// ```
    ///
    /// Compiled models (`.mom`, `.momd`) are Core Data's private format and cannot be read; use
    /// the `.xcdatamodeld` they were compiled from. Errors are 134060 ``StoreError``s naming
    /// the file, the element and its line.
    public init(contentsOf url: URL) throws {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw StoreError(.coreData, "There is no model at \(url.path)", fileURL: url)
        }
        switch url.pathExtension.lowercased() {
        case "mom", "momd":
            throw StoreError(
                .coreData,
                "\(url.path) is a compiled Core Data model, which cannot be read; use the .xcdatamodeld it was compiled from",
                fileURL: url)
        case "json":
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw StoreError(.coreData, "Cannot read the model file \(url.path): \(error.localizedDescription)", fileURL: url)
            }
            do {
                self = try ObjectModel(jsonData: data)
            } catch var error as StoreError {
                error.message = "\(url.path): \(error.message)"
                error.fileURL = url
                throw error
            }
        case "xcdatamodeld":
            self = try XcodeModelBundle(contentsOf: url).currentModel()
        default:
            guard isDirectory.boolValue else {
                self = try XcodeModelReader.readContents(at: url)
                return
            }
            let contents = url.appendingPathComponent("contents")
            if fileManager.fileExists(atPath: contents.path) {
                self = try XcodeModelReader.readContents(at: contents)
            } else if fileManager.fileExists(atPath: url.appendingPathComponent(".xccurrentversion").path) {
                self = try XcodeModelBundle(contentsOf: url).currentModel()
            } else {
                throw StoreError(
                    .coreData,
                    "\(url.path) has no contents file (models saved by Xcode 3 and earlier are not supported)",
                    fileURL: url)
            }
        }
    }

    /// Every version of the Xcode model bundle at `url`, by version name (a single
    /// `.xcdatamodel` or JSON file gives one entry named after the file).
    public static func allVersions(ofModelAt url: URL) throws -> [String: ObjectModel] {
        if url.pathExtension.lowercased() == "xcdatamodeld" {
            return try XcodeModelBundle(contentsOf: url).allModels()
        }
        return [url.deletingPathExtension().lastPathComponent: try ObjectModel(contentsOf: url)]
    }

    /// Every version of the Xcode model bundle at `url` in version order ("Model 2" before
    /// "Model 10"), the current one included; a single `.xcdatamodel` or JSON file gives its one
    /// model. What a ``PersistentContainer`` made from a model file passes as its versions.
    public static func versions(ofModelAt url: URL) throws -> [ObjectModel] {
        if url.pathExtension.lowercased() == "xcdatamodeld" {
            let bundle = try XcodeModelBundle(contentsOf: url)
            return try bundle.versionNames.map { try bundle.model(version: $0) }
        }
        return [try ObjectModel(contentsOf: url)]
    }

    /// Writes the model as JSON (``jsonData()``) to `url`, atomically.
    public func writeJSON(to url: URL) throws {
        do {
            try jsonData().write(to: url, options: .atomic)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.coreData, "Cannot write the model to \(url.path): \(error.localizedDescription)", fileURL: url)
        }
    }
}

extension ObjectModel {
    /// Reads a model from the bytes of an Xcode model's `contents` file, naming `file` in
    /// errors: the entry point of the fuzz harness (no file is read).
    @_spi(Fuzzing)
    public static func readXcodeModelContents(_ data: Data, file: URL) throws -> ObjectModel {
        try XcodeModelReader.readContents(data, file: file)
    }
}
