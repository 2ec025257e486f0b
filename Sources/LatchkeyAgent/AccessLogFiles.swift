import Foundation

/// Where a keychain's access log lives: `<keychain>.access-log` and the rotated `<keychain>.access-log.1`,
/// beside the keychain file (mode 0600).
public struct AccessLogFiles: Sendable, Hashable {
    /// The file entries are appended to.
    public var currentPath: String
    /// The previous file, replaced at each rotation.
    public var rotatedPath: String

    /// The files of the keychain at `keychainPath`.
    public init(keychainPath: String) {
        currentPath = keychainPath + ".access-log"
        rotatedPath = keychainPath + ".access-log.1"
    }
}
