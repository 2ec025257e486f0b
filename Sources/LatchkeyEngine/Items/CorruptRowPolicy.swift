import Foundation
import LatchkeyCrypto

/// What a search does with rows that fail authentication (corrupt or tampered).
public enum CorruptRowPolicy: String, Sendable, Hashable, Codable {
    /// Skip them; when every match is corrupt, nothing was found (`itemNotFound`), as Apple does.
    case skip
    /// Skip them while others match; when every match is corrupt, fail with `decode` (-26275).
    case report
}
