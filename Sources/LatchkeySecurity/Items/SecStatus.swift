#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeyLocalAuthentication

/// The one place where errors become `OSStatus` values.
enum SecStatus {
    /// Maps any error of the core or of LocalAuthentication to Apple's OSStatus, and records its message
    /// as `LatchkeySecurity.lastErrorMessage`.
    ///
    /// LocalAuthentication failures map as Apple's client does
    /// (docs/apple-semantics.md §3.6): cancel → `errSecUserCanceled`,
    /// not interactive → `errSecInteractionNotAllowed`, everything else → `errSecAuthFailed`.
    static func from(_ error: any Error) -> OSStatus {
        let status: OSStatus
        let message: String
        switch error {
        case let error as KeychainError:
            status = error.code.rawValue
            message = error.message
        case let error as LAError:
            switch error.code {
            case .userCancel: status = errSecUserCanceled
            case .notInteractive: status = errSecInteractionNotAllowed
            default: status = errSecAuthFailed
            }
            message = "Authentication for a protected item failed (\(error.description))."
        default:
            status = errSecInternal
            message = "Unexpected internal error (\(type(of: error)))."
        }
        LatchkeySecurity.recordLastError(message)
        return status
    }
}
#endif
