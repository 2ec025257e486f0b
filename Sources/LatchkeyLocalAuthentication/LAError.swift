#if !canImport(Darwin)
import Foundation

/// An authentication failure; mirrors Apple's `LAError` (codes and raw values are Apple's).
///
/// Match it as on Apple platforms: `catch let error as LAError where error.code == .userCancel`, or
/// `catch LAError.userCancel`.
public struct LAError: Error, CustomNSError, Sendable, Hashable, CustomStringConvertible {
    /// `LAError.Code` with Apple's raw values.
    public enum Code: Int, Sendable, Hashable {
        /// `LAError.Code.authenticationFailed`: the credential was wrong.
        case authenticationFailed = -1
        /// `LAError.Code.userCancel`: the user cancelled.
        case userCancel = -2
        /// `LAError.Code.userFallback`: the user chose the fallback button.
        case userFallback = -3
        /// `LAError.Code.systemCancel`: the system cancelled.
        case systemCancel = -4
        /// `LAError.Code.passcodeNotSet`: no passcode (here: the keychain has no passphrase).
        case passcodeNotSet = -5
        /// `LAError.Code.biometryNotAvailable` (also `touchIDNotAvailable`).
        case biometryNotAvailable = -6
        /// `LAError.Code.biometryNotEnrolled` (also `touchIDNotEnrolled`).
        case biometryNotEnrolled = -7
        /// `LAError.Code.biometryLockout` (also `touchIDLockout`).
        case biometryLockout = -8
        /// `LAError.Code.appCancel`: `invalidate()` was called during an evaluation.
        case appCancel = -9
        /// `LAError.Code.invalidContext`: the context was invalidated.
        case invalidContext = -10
        /// `LAError.Code.companionNotAvailable`.
        case companionNotAvailable = -11
        /// `LAError.Code.biometryNotPaired`.
        case biometryNotPaired = -12
        /// `LAError.Code.biometryDisconnected`.
        case biometryDisconnected = -13
        /// `LAError.Code.invalidDimensions`.
        case invalidDimensions = -14
        /// `LAError.Code.notInteractive`: interaction was needed but not allowed (no terminal, or
        /// `interactionNotAllowed`).
        case notInteractive = -1004

        /// `LAError.Code.touchIDNotAvailable` (deprecated alias).
        public static var touchIDNotAvailable: Code { .biometryNotAvailable }
        /// `LAError.Code.touchIDNotEnrolled` (deprecated alias).
        public static var touchIDNotEnrolled: Code { .biometryNotEnrolled }
        /// `LAError.Code.touchIDLockout` (deprecated alias).
        public static var touchIDLockout: Code { .biometryLockout }

        /// Lets `catch LAError.userCancel` match a thrown `LAError`.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? LAError)?.code == pattern
        }
    }

    /// The failure code.
    public let code: Code

    /// Makes an error for `code` (`userInfo` is accepted for Apple's signature and ignored).
    public init(_ code: Code, userInfo: [String: Any] = [:]) { self.code = code }

    /// The error domain, `LAErrorDomain`.
    public static var errorDomain: String { LAErrorDomain }
    /// The raw code, as `NSError.code` holds it (`(error as NSError).code`).
    public var errorCode: Int { code.rawValue }

    /// No user info.
    public var errorUserInfo: [String: Any] { [:] }

    /// `"LAError <code>"`.
    public var description: String { "LAError \(code.rawValue) (\(code))" }

    /// The same failure as an `NSError` in `LAErrorDomain`.
    public var nsError: NSError { NSError(domain: LAErrorDomain, code: code.rawValue) }

    /// `LAError.authenticationFailed`.
    public static var authenticationFailed: Code { .authenticationFailed }
    /// `LAError.userCancel`.
    public static var userCancel: Code { .userCancel }
    /// `LAError.userFallback`.
    public static var userFallback: Code { .userFallback }
    /// `LAError.systemCancel`.
    public static var systemCancel: Code { .systemCancel }
    /// `LAError.passcodeNotSet`.
    public static var passcodeNotSet: Code { .passcodeNotSet }
    /// `LAError.biometryNotAvailable`.
    public static var biometryNotAvailable: Code { .biometryNotAvailable }
    /// `LAError.biometryNotEnrolled`.
    public static var biometryNotEnrolled: Code { .biometryNotEnrolled }
    /// `LAError.biometryLockout`.
    public static var biometryLockout: Code { .biometryLockout }
    /// `LAError.touchIDNotAvailable`.
    public static var touchIDNotAvailable: Code { .biometryNotAvailable }
    /// `LAError.touchIDNotEnrolled`.
    public static var touchIDNotEnrolled: Code { .biometryNotEnrolled }
    /// `LAError.touchIDLockout`.
    public static var touchIDLockout: Code { .biometryLockout }
    /// `LAError.appCancel`.
    public static var appCancel: Code { .appCancel }
    /// `LAError.invalidContext`.
    public static var invalidContext: Code { .invalidContext }
    /// `LAError.notInteractive`.
    public static var notInteractive: Code { .notInteractive }

}

/// `kLAErrorAuthenticationFailed` (-1), Apple's C spelling of `LAError.Code.authenticationFailed`.
public let kLAErrorAuthenticationFailed: Int32 = -1
/// `kLAErrorUserCancel` (-2).
public let kLAErrorUserCancel: Int32 = -2
/// `kLAErrorUserFallback` (-3).
public let kLAErrorUserFallback: Int32 = -3
/// `kLAErrorSystemCancel` (-4).
public let kLAErrorSystemCancel: Int32 = -4
/// `kLAErrorPasscodeNotSet` (-5).
public let kLAErrorPasscodeNotSet: Int32 = -5
/// `kLAErrorBiometryNotAvailable` (-6).
public let kLAErrorBiometryNotAvailable: Int32 = -6
/// `kLAErrorBiometryNotEnrolled` (-7).
public let kLAErrorBiometryNotEnrolled: Int32 = -7
/// `kLAErrorBiometryLockout` (-8).
public let kLAErrorBiometryLockout: Int32 = -8
/// `kLAErrorAppCancel` (-9).
public let kLAErrorAppCancel: Int32 = -9
/// `kLAErrorInvalidContext` (-10).
public let kLAErrorInvalidContext: Int32 = -10
/// `kLAErrorNotInteractive` (-1004).
public let kLAErrorNotInteractive: Int32 = -1004
#endif
