import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the machine itself costs, measured in the same temporary directory and at the same time as the
/// keychain, so that durable-write numbers can be read against the disk's own flush latency:
///
/// - `fsync-4k`: overwrite 4 KiB in place in a preallocated file and `fdatasync` it — what a commit in
///   SQLite's WAL costs at least once the WAL has reached its working size (appending instead would also
///   flush the file size through the filesystem journal, which SQLite mostly avoids). At most 200
///   samples, since a slow disk makes each one take milliseconds.
enum CalibrationBenchmarks: BenchmarkSuite {
    static let name = "calibration"
    static let maximumSyncSamples = 200

    static func run(_ context: inout BenchmarkContext, on keychain: FilledKeychain) throws {
        guard context.options.includes("fsync-4k") else { return }
        context.progress("\(name): fsync-4k")
        let path = context.directory.path + "/fsync-calibration"
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw BenchmarkFailure("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer {
            close(descriptor)
            unlink(path)
        }
        let block = [UInt8](repeating: 0xA5, count: 4096)
        let count = min(context.options.samples, maximumSyncSamples)
        for run in 0..<count {
            try writeBlock(block, at: run, to: descriptor, path)
        }
        guard flush(descriptor) == 0 else {
            throw BenchmarkFailure("cannot sync \(path): \(String(cString: strerror(errno)))")
        }
        let measurement = try context.measure(count) { run in
            try writeBlock(block, at: run, to: descriptor, path)
            guard flush(descriptor) == 0 else {
                throw BenchmarkFailure("cannot sync \(path): \(String(cString: strerror(errno)))")
            }
        }
        context.report.add("fsync-4k", items: keychain.items, measurement)
    }
}

/// Writes `block` as the `index`-th 4 KiB block of the file.
private func writeBlock(_ block: [UInt8], at index: Int, to descriptor: Int32, _ path: String) throws {
    let written = block.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(index) * 4096) }
    guard written == block.count else {
        throw BenchmarkFailure("cannot write \(path): \(String(cString: strerror(errno)))")
    }
}

/// `fdatasync` where it exists (what SQLite uses on Linux), else `fsync`.
private func flush(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
    fdatasync(descriptor)
    #else
    fsync(descriptor)
    #endif
}
