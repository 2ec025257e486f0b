extension KeychainError.Code {
    /// Apple's `errSec*` constant for this status, or `nil` when Apple names none that the keychain returns.
    ///
    /// The names are those of `SecBase.h`; where Apple has two for one value (-34: `errSecDiskFull` and the older
    /// `errSecDskFull`; -4: `errSecUnimplemented` and `errSecUnsupportedOperation`), the first is given.
    ///
    /// ```swift
    /// KeychainError.Code.itemNotFound.appleName  // "errSecItemNotFound"
    /// ```
    public var appleName: String? {
        Self.appleNames[rawValue]
    }

    /// `SecBase.h`'s names for the codes the keychain and its faces return.
    private static let appleNames: [Int32: String] = [
        0: "errSecSuccess",
        -4: "errSecUnimplemented",
        -34: "errSecDiskFull",
        -36: "errSecIO",
        -49: "errSecOpWr",
        -50: "errSecParam",
        -61: "errSecWrPerm",
        -108: "errSecAllocate",
        -128: "errSecUserCanceled",
        -909: "errSecBadReq",
        -2070: "errSecInternalComponent",
        -25291: "errSecNotAvailable",
        -25292: "errSecReadOnly",
        -25293: "errSecAuthFailed",
        -25294: "errSecNoSuchKeychain",
        -25295: "errSecInvalidKeychain",
        -25296: "errSecDuplicateKeychain",
        -25299: "errSecDuplicateItem",
        -25300: "errSecItemNotFound",
        -25301: "errSecBufferTooSmall",
        -25302: "errSecDataTooLarge",
        -25303: "errSecNoSuchAttr",
        -25304: "errSecInvalidItemRef",
        -25305: "errSecInvalidSearchRef",
        -25306: "errSecNoSuchClass",
        -25307: "errSecNoDefaultKeychain",
        -25308: "errSecInteractionNotAllowed",
        -25309: "errSecReadOnlyAttr",
        -25315: "errSecInteractionRequired",
        -25316: "errSecDataNotAvailable",
        -25317: "errSecDataNotModifiable",
        -25256: "errSecUnsupportedFormat",
        -25257: "errSecUnknownFormat",
        -25260: "errSecPassphraseRequired",
        -25264: "errSecPkcs12VerifyFailure",
        -26275: "errSecDecode",
        -26276: "errSecInternal",
        -34018: "errSecMissingEntitlement",
        -34020: "errSecRestrictedAPI",
        -67808: "errSecVerifyFailed",
    ]
}
