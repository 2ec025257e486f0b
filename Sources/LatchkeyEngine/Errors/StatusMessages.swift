extension KeychainError.Code {
    /// The text Apple's `SecCopyErrorMessageString` returns for this status.
    ///
    /// The texts are the end-of-line comments of `SecBase.h`, from which Apple generates
    /// `SecErrorMessages.strings`. A code without an entry reads `"OSStatus <n>"`, as on Apple platforms.
    ///
    /// ```swift
    /// KeychainError.Code.itemNotFound.statusMessage
    /// // "The specified item could not be found in the keychain."
    /// ```
    public var statusMessage: String {
        Self.statusMessages[rawValue] ?? "OSStatus \(rawValue)"
    }

    /// `SecBase.h`'s comments for the codes the keychain returns.
    private static let statusMessages: [Int32: String] = [
        0: "No error.",
        -4: "Function or operation not implemented.",
        -36: "I/O error.",
        -50: "One or more parameters passed to a function were not valid.",
        -108: "Failed to allocate memory.",
        -128: "User canceled the operation.",
        -909: "Bad parameter or invalid state for operation.",
        -25291: "No keychain is available. You may need to restart your computer.",
        -25292: "This keychain cannot be modified.",
        -25293: "The user name or passphrase you entered is not correct.",
        -25294: "The specified keychain could not be found.",
        -25299: "The specified item already exists in the keychain.",
        -25300: "The specified item could not be found in the keychain.",
        -25303: "The specified attribute does not exist.",
        -25304: "The specified item is no longer valid. It may have been deleted from the keychain.",
        -25306: "The specified item does not appear to be a valid keychain item.",
        -25307: "A default keychain could not be found.",
        -25308: "User interaction is not allowed.",
        -25315: "User interaction is required, but is currently not allowed.",
        -25316: "The contents of this item cannot be retrieved.",
        -26275: "Unable to decode the provided data.",
        -34018: "A required entitlement isn't present.",
        -34020: "Client is restricted and is not permitted to perform this operation.",
    ]
}
