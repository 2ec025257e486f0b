#if !canImport(Darwin)
import Foundation

/// The kind of authentication a context evaluates; mirrors Apple's `LAPolicy`.
///
/// On Linux every policy is satisfied the same way, by the installed `LAAuthenticator` (by default the
/// keychain passphrase typed on the terminal): there is no biometry.
public enum LAPolicy: Int, Sendable, Hashable {
    /// `LAPolicy.deviceOwnerAuthenticationWithBiometrics`.
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// `LAPolicy.deviceOwnerAuthentication`: biometry or passcode (here: the passphrase).
    case deviceOwnerAuthentication = 2
    /// `LAPolicy.deviceOwnerAuthenticationWithWatch` (macOS).
    case deviceOwnerAuthenticationWithWatch = 3
    /// `LAPolicy.deviceOwnerAuthenticationWithBiometricsOrWatch` (macOS).
    case deviceOwnerAuthenticationWithBiometricsOrWatch = 4
    /// `LAPolicy.deviceOwnerAuthenticationWithWristDetection` (watchOS).
    case deviceOwnerAuthenticationWithWristDetection = 5
}

/// The biometry a device offers; mirrors Apple's `LABiometryType`. Always `.none` on Linux.
public enum LABiometryType: Int, Sendable, Hashable {
    /// `LABiometryType.none`.
    case none = 0
    /// `LABiometryType.touchID`.
    case touchID = 1
    /// `LABiometryType.faceID`.
    case faceID = 2
    /// `LABiometryType.opticID`.
    case opticID = 4
}

/// The operation an access control is evaluated for; mirrors Apple's `LAAccessControlOperation`.
public enum LAAccessControlOperation: Int, Sendable, Hashable {
    /// `.createItem`.
    case createItem = 0
    /// `.useItem`.
    case useItem = 1
    /// `.createKey`.
    case createKey = 2
    /// `.useKeySign`.
    case useKeySign = 3
    /// `.useKeyDecrypt`.
    case useKeyDecrypt = 4
    /// `.useKeyKeyExchange`.
    case useKeyKeyExchange = 5
}

/// `LATouchIDAuthenticationMaximumAllowableReuseDuration`: the longest reuse window (5 minutes).
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: TimeInterval = 300

/// `LAErrorDomain`: the domain of `NSError`s made from `LAError`.
public let LAErrorDomain = "com.apple.LocalAuthentication"

/// A pointer an Objective-C-style API writes an error through; Apple's Foundation names it
/// `NSErrorPointer`, swift-corelibs-foundation does not define it.
///
/// Callers write `var error: NSError?` and pass `&error`, exactly as on Apple platforms.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
#endif
