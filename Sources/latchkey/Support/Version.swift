/// The version of `latchkey`, defined once: `latchkey --version` prints `latchkey <version>`.
enum LatchkeyVersion {
    /// The release this tree builds.
    static let current = "0.9.0"

    /// What `--version` prints.
    static var line: String { "latchkey \(current)" }
}
