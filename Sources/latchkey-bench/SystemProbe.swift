import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the benchmark reads about the machine and the process.
enum SystemProbe {
    /// Peak resident set size of this process so far, in MiB (`getrusage` `ru_maxrss`, KiB on Linux).
    static func peakResidentMiB() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_maxrss) / 1024
    }

    /// Current resident set size in MiB (`/proc/self/statm`), or `nil` where unavailable.
    static func currentResidentMiB() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / (1024 * 1024)
    }

    /// The size of a file in bytes, 0 when it does not exist.
    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// The kernel's name and release (`uname -sr`), e.g. "Linux 6.18.44".
    static func kernelDescription() -> String {
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown kernel" }
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return text(names.sysname) + " " + text(names.release)
    }

    /// "CPU model, N online CPUs, M GiB RAM, kernel" from `/proc/cpuinfo`, `/proc/meminfo` and `uname`.
    static func machineDescription() -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        let cpus = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let totalKiB =
            meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { $0.split(separator: " ").dropFirst().first }
            .flatMap { Double($0) } ?? 0
        let memory = totalKiB > 0 ? String(format: "%.1f GiB RAM", totalKiB / 1024 / 1024) : "unknown RAM"
        return "\(model), \(cpus) online CPUs, \(memory), \(kernelDescription())"
    }
}
