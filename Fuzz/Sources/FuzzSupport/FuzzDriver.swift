import Foundation

/// libFuzzer's entry point when the program has its own `main`: parses libFuzzer's flags from
/// `argv` and runs `callback` on each input.
@_silgen_name("LLVMFuzzerRunDriver")
private func runLibFuzzer(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The `main` of every harness.
///
/// Each harness defines `LLVMFuzzerTestOneInput` (libFuzzer's own `main` object refers to it)
/// and calls ``main(seeds:testOneInput:)``, which either writes the harness's generated seeds
/// (`<harness> --write-seeds <folder>`) or runs libFuzzer with the command line's flags
/// (`<harness> Corpus/<harness> -max_total_time=60`, `<harness> -runs=0 <inputs…>`).
public enum FuzzDriver {
    /// Runs the harness and exits with libFuzzer's status (non-zero after a crash).
    public static func main(
        seeds: () throws -> [String: Data],
        testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Never {
        let arguments = CommandLine.arguments
        if arguments.count == 3, arguments[1] == "--write-seeds" {
            do {
                let folder = URL(fileURLWithPath: arguments[2])
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let generated = try seeds()
                for (name, data) in generated.sorted(by: { $0.key < $1.key }) {
                    try data.write(to: folder.appendingPathComponent(name))
                }
                print("wrote \(generated.count) seeds to \(folder.path)")
                exit(0)
            } catch {
                print("error: \(error)")
                exit(1)
            }
        }
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runLibFuzzer(&argc, &argv, testOneInput))
    }

    /// The input as `Data` (copied).
    public static func data(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Data {
        guard let bytes, count > 0 else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// Stops the process so that libFuzzer records the input: a broken property (round trip,
    /// differential) is a finding exactly like a crash.
    public static func propertyFailed(_ message: String) -> Never {
        FileHandle.standardError.write(Data("property failed: \(message)\n".utf8))
        abort()
    }
}
