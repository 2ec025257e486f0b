import Foundation

/// The process's arguments as the kernel passed them: bytes, before any decoding.
enum RawArguments {
    /// The position (1 for the first argument after the program's name) of the first argument whose bytes
    /// are not valid UTF-8, or `nil` when every argument is.
    ///
    /// `CommandLine.arguments` decodes each argument leniently, replacing invalid bytes with U+FFFD, which
    /// would make `$'\xff'` and `$'\xfe'` the same account; this reads `CommandLine.unsafeArgv` instead.
    static func firstInvalidUTF8() -> Int? {
        let count = Int(CommandLine.argc)
        guard count > 1 else { return nil }
        for position in 1..<count {
            guard let argument = CommandLine.unsafeArgv[position] else { continue }
            if String(validatingCString: argument) == nil { return position }
        }
        return nil
    }
}
