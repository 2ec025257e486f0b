/// The one error type of the `Latchkey` layer: an OSStatus-compatible code plus a fixed-text message.
///
/// Messages say what failed and what to do about it; they never contain a secret or an attribute
/// value. Match on the code:
///
/// ```swift
/// do {
///     _ = try store.find(query)
/// } catch KeychainError.Code.itemNotFound {
///     // nothing stored yet
/// } catch KeychainError.Code.interactionNotAllowed {
///     // locked: try again after unlocking, do NOT treat as logged out
/// }
/// ```
public struct KeychainError: Error, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// An OSStatus value; open, so codes this build does not name survive round trips.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The OSStatus value.
        public let rawValue: Int32

        /// Wraps any OSStatus value.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `errSecUnimplemented` (-4): function or operation not implemented.
        public static let unimplemented = Code(rawValue: -4)
        /// `errSecIO` (-36): I/O error.
        public static let io = Code(rawValue: -36)
        /// `errSecParam` (-50): one or more parameters passed to a function were not valid.
        public static let param = Code(rawValue: -50)
        /// `errSecAllocate` (-108): failed to allocate memory.
        public static let allocate = Code(rawValue: -108)
        /// `errSecUserCanceled` (-128): user canceled the operation.
        public static let userCanceled = Code(rawValue: -128)
        /// `errSecBadReq` (-909): bad parameter or invalid state for operation.
        public static let badRequest = Code(rawValue: -909)
        /// `errSecInternalComponent` (-2070).
        public static let internalComponent = Code(rawValue: -2070)
        /// `errSecNotAvailable` (-25291): no keychain is available.
        public static let notAvailable = Code(rawValue: -25291)
        /// `errSecReadOnly` (-25292): this keychain cannot be modified.
        public static let readOnly = Code(rawValue: -25292)
        /// `errSecAuthFailed` (-25293): the user name or passphrase you entered is not correct.
        public static let authFailed = Code(rawValue: -25293)
        /// `errSecNoSuchKeychain` (-25294): the specified keychain could not be found (a keychain named by path or
        /// name does not exist; `noDefaultKeychain` is for the default keychain when nothing was named).
        public static let noSuchKeychain = Code(rawValue: -25294)
        /// `errSecDuplicateItem` (-25299): the specified item already exists in the keychain.
        public static let duplicateItem = Code(rawValue: -25299)
        /// `errSecItemNotFound` (-25300): the specified item could not be found in the keychain.
        public static let itemNotFound = Code(rawValue: -25300)
        /// `errSecNoSuchAttr` (-25303): the specified attribute does not exist.
        public static let noSuchAttribute = Code(rawValue: -25303)
        /// `errSecInvalidItemRef` (-25304): the specified item is no longer valid.
        public static let invalidItemRef = Code(rawValue: -25304)
        /// `errSecNoSuchClass` (-25306): the specified item does not appear to be a valid keychain item.
        public static let noSuchClass = Code(rawValue: -25306)
        /// `errSecNoDefaultKeychain` (-25307): a default keychain could not be found.
        public static let noDefaultKeychain = Code(rawValue: -25307)
        /// `errSecInteractionNotAllowed` (-25308): the keychain is locked for the item's accessibility class.
        public static let interactionNotAllowed = Code(rawValue: -25308)
        /// `errSecInteractionRequired` (-25315): the item needs user authentication that the request did not
        /// confirm; the caller authenticates the user and repeats the request with the confirmation.
        public static let interactionRequired = Code(rawValue: -25315)
        /// `errSecDecode` (-26275): unable to decode the provided data (corrupt or tampered).
        public static let decode = Code(rawValue: -26275)
        /// `errSecInternal` (-26276).
        public static let `internal` = Code(rawValue: -26276)
        /// `errSecMissingEntitlement` (-34018): a required access group is not the caller's.
        public static let missingEntitlement = Code(rawValue: -34018)

        /// The decimal OSStatus, e.g. `-25300`.
        public var description: String { "\(rawValue)" }

        /// Lets `catch KeychainError.Code.itemNotFound` match a thrown error of any type.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? KeychainError)?.code == pattern
        }

        /// Lets `catch KeychainError.Code.itemNotFound` match inside `throws(KeychainError)` code.
        public static func ~= (pattern: Code, error: KeychainError) -> Bool {
            error.code == pattern
        }
    }

    /// The OSStatus code.
    public let code: Code
    /// A fixed, actionable text without secrets or attribute values.
    public let message: String
    /// The lower layer's description (SQLite or crypto), for `debugDescription` only.
    public let underlying: String?

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - code: The OSStatus code.
    ///   - message: A fixed text; must not contain secrets or attribute values.
    ///   - underlying: An optional lower-layer cause for diagnostics.
    public init(_ code: Code, _ message: String, underlying: String? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// `"<message> (OSStatus <code>)"`.
    public var description: String { "\(message) (OSStatus \(code.rawValue))" }

    /// The description plus the lower layer's cause.
    public var debugDescription: String {
        underlying.map { "\(description) [cause: \($0)]" } ?? description
    }

    /// Compares code and message.
    public static func == (lhs: KeychainError, rhs: KeychainError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }
}
