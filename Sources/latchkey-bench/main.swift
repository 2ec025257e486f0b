import Foundation
import Latchkey

// latchkey-bench: measures the keychain store on a fresh temporary keychain (see BenchmarkOptions.usage).

/// The suites, in order. The floor comes first, so that every later operation can be printed as a ratio
/// to it; the store suite records peak memory before the unlock suite runs scrypt at the standard cost
/// (128 MiB), so that figure reflects the item operations only. The agent suite comes last: its load
/// clients write through another process, which the other suites' in-process store would then verify.
func suites() -> [any BenchmarkSuite.Type] {
    [
        FloorBenchmarks.self, StoreBenchmarks.self, SecItemBenchmarks.self, TypedAPIBenchmarks.self,
        KeyBenchmarks.self, UnlockBenchmarks.self, TokenBenchmarks.self, AgentBenchmarks.self,
    ]
}

func runBenchmarks() -> Int32 {
    AgentFairnessBenchmarks.raiseDescriptorLimit()
    let options: BenchmarkOptions
    do {
        guard let parsed = try BenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
            print(BenchmarkOptions.usage)
            return 0
        }
        options = parsed
    } catch {
        FileHandle.standardError.write(Data("latchkey-bench: \(error)\n\(BenchmarkOptions.usage)\n".utf8))
        return 64
    }
    do {
        let directory = try BenchmarkDirectory(keep: options.keep)
        var context = BenchmarkContext(
            options: options,
            directory: directory,
            generator: SeededGenerator(seed: options.seed),
            report: ResultReport(json: options.json)
        )
        let machine = SystemProbe.machineDescription()
        context.progress("machine: \(machine)")
        let keychain = try FilledKeychain(&context)
        for suite in suites() {
            try suite.run(&context, on: keychain)
        }
        try keychain.store.close()
        if !options.json {
            print("latchkey-bench --items \(options.items) --samples \(options.samples)")
            print("machine: \(machine)")
            print("")
            print(context.report.table())
        }
        if options.keep { context.progress("kept \(directory.path)") }
        return 0
    } catch {
        FileHandle.standardError.write(Data("latchkey-bench: failed: \(error)\n".utf8))
        return 1
    }
}

if CommandLine.arguments.dropFirst().first == "sync" {
    exit(SyncBenchmarks.run(Array(CommandLine.arguments.dropFirst(2))))
}
exit(runBenchmarks())
