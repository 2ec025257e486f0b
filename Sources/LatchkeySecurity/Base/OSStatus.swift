#if !canImport(Darwin)
/// `OSStatus`: the 32-bit result code of every Security call (0 = success).
public typealias OSStatus = Int32

/// `noErr`: success (0).
public let noErr: OSStatus = 0

/// `errSecSuccess` (0): no error.
public let errSecSuccess: OSStatus = 0
/// `errSecUnimplemented` (-4): function or operation not implemented.
public let errSecUnimplemented: OSStatus = -4
/// `errSecDiskFull` (-34): the disk is full.
public let errSecDiskFull: OSStatus = -34
/// `errSecDskFull` (-34): Apple's older spelling of `errSecDiskFull`.
public let errSecDskFull: OSStatus = -34
/// `errSecIO` (-36): I/O error.
public let errSecIO: OSStatus = -36
/// `errSecOpWr` (-49): file already open with write permission.
public let errSecOpWr: OSStatus = -49
/// `errSecParam` (-50): one or more parameters passed to a function were not valid.
public let errSecParam: OSStatus = -50
/// `errSecWrPerm` (-61): write permissions error.
public let errSecWrPerm: OSStatus = -61
/// `errSecAllocate` (-108): failed to allocate memory.
public let errSecAllocate: OSStatus = -108
/// `errSecUserCanceled` (-128): user canceled the operation.
public let errSecUserCanceled: OSStatus = -128
/// `errSecBadReq` (-909): bad parameter or invalid state for operation.
public let errSecBadReq: OSStatus = -909
/// `errSecInternalComponent` (-2070).
public let errSecInternalComponent: OSStatus = -2070
/// `errSecCoreFoundationUnknown` (-4960).
public let errSecCoreFoundationUnknown: OSStatus = -4960
/// `errSecNotAvailable` (-25291): no keychain is available.
public let errSecNotAvailable: OSStatus = -25291
/// `errSecReadOnly` (-25292): this keychain cannot be modified.
public let errSecReadOnly: OSStatus = -25292
/// `errSecAuthFailed` (-25293): the user name or passphrase you entered is not correct.
public let errSecAuthFailed: OSStatus = -25293
/// `errSecNoSuchKeychain` (-25294): the specified keychain could not be found.
public let errSecNoSuchKeychain: OSStatus = -25294
/// `errSecInvalidKeychain` (-25295): the specified keychain is not a valid keychain file.
public let errSecInvalidKeychain: OSStatus = -25295
/// `errSecDuplicateKeychain` (-25296): a keychain with the same name already exists.
public let errSecDuplicateKeychain: OSStatus = -25296
/// `errSecDuplicateCallback` (-25297).
public let errSecDuplicateCallback: OSStatus = -25297
/// `errSecInvalidCallback` (-25298).
public let errSecInvalidCallback: OSStatus = -25298
/// `errSecDuplicateItem` (-25299): the specified item already exists in the keychain.
public let errSecDuplicateItem: OSStatus = -25299
/// `errSecItemNotFound` (-25300): the specified item could not be found in the keychain.
public let errSecItemNotFound: OSStatus = -25300
/// `errSecBufferTooSmall` (-25301).
public let errSecBufferTooSmall: OSStatus = -25301
/// `errSecDataTooLarge` (-25302).
public let errSecDataTooLarge: OSStatus = -25302
/// `errSecNoSuchAttr` (-25303): the specified attribute does not exist.
public let errSecNoSuchAttr: OSStatus = -25303
/// `errSecInvalidItemRef` (-25304): the specified item is no longer valid.
public let errSecInvalidItemRef: OSStatus = -25304
/// `errSecInvalidSearchRef` (-25305).
public let errSecInvalidSearchRef: OSStatus = -25305
/// `errSecNoSuchClass` (-25306): the specified item does not appear to be a valid keychain item.
public let errSecNoSuchClass: OSStatus = -25306
/// `errSecNoDefaultKeychain` (-25307): a default keychain could not be found.
public let errSecNoDefaultKeychain: OSStatus = -25307
/// `errSecInteractionNotAllowed` (-25308): user interaction is not allowed.
public let errSecInteractionNotAllowed: OSStatus = -25308
/// `errSecReadOnlyAttr` (-25309).
public let errSecReadOnlyAttr: OSStatus = -25309
/// `errSecWrongSecVersion` (-25310).
public let errSecWrongSecVersion: OSStatus = -25310
/// `errSecKeySizeNotAllowed` (-25311).
public let errSecKeySizeNotAllowed: OSStatus = -25311
/// `errSecNoStorageModule` (-25312).
public let errSecNoStorageModule: OSStatus = -25312
/// `errSecNoCertificateModule` (-25313).
public let errSecNoCertificateModule: OSStatus = -25313
/// `errSecNoPolicyModule` (-25314).
public let errSecNoPolicyModule: OSStatus = -25314
/// `errSecInteractionRequired` (-25315): user interaction is required, but is currently not allowed.
public let errSecInteractionRequired: OSStatus = -25315
/// `errSecDataNotAvailable` (-25316): the contents of this item cannot be retrieved.
public let errSecDataNotAvailable: OSStatus = -25316
/// `errSecDataNotModifiable` (-25317).
public let errSecDataNotModifiable: OSStatus = -25317
/// `errSecCreateChainFailed` (-25318): one or more certificates required to validate this certificate cannot be
/// found (trust evaluation: a missing intermediate).
public let errSecCreateChainFailed: OSStatus = -25318
/// `errSecInvalidPrefsDomain` (-25319).
public let errSecInvalidPrefsDomain: OSStatus = -25319
/// `errSecInDarkWake` (-25320).
public let errSecInDarkWake: OSStatus = -25320
/// `errSecACLNotSimple` (-25240).
public let errSecACLNotSimple: OSStatus = -25240
/// `errSecPolicyNotFound` (-25241).
public let errSecPolicyNotFound: OSStatus = -25241
/// `errSecInvalidTrustSetting` (-25242).
public let errSecInvalidTrustSetting: OSStatus = -25242
/// `errSecNoAccessForItem` (-25243).
public let errSecNoAccessForItem: OSStatus = -25243
/// `errSecInvalidOwnerEdit` (-25244).
public let errSecInvalidOwnerEdit: OSStatus = -25244
/// `errSecTrustNotAvailable` (-25245).
public let errSecTrustNotAvailable: OSStatus = -25245
/// `errSecUnsupportedFormat` (-25256).
public let errSecUnsupportedFormat: OSStatus = -25256
/// `errSecUnknownFormat` (-25257).
public let errSecUnknownFormat: OSStatus = -25257
/// `errSecKeyIsSensitive` (-25258).
public let errSecKeyIsSensitive: OSStatus = -25258
/// `errSecMultiplePrivKeys` (-25259).
public let errSecMultiplePrivKeys: OSStatus = -25259
/// `errSecPassphraseRequired` (-25260).
public let errSecPassphraseRequired: OSStatus = -25260
/// `errSecInvalidPasswordRef` (-25261).
public let errSecInvalidPasswordRef: OSStatus = -25261
/// `errSecInvalidTrustSettings` (-25262).
public let errSecInvalidTrustSettings: OSStatus = -25262
/// `errSecNoTrustSettings` (-25263).
public let errSecNoTrustSettings: OSStatus = -25263
/// `errSecPkcs12VerifyFailure` (-25264).
public let errSecPkcs12VerifyFailure: OSStatus = -25264
/// `errSecDecode` (-26275): unable to decode the provided data.
public let errSecDecode: OSStatus = -26275
/// `errSecInternal` (-26276, SPI): internal error.
public let errSecInternal: OSStatus = -26276
/// `errSecAuthNeeded` (-25330, SPI): internal signal that user authentication is needed.
public let errSecAuthNeeded: OSStatus = -25330
/// `errSecMissingEntitlement` (-34018): a required entitlement isn't present.
public let errSecMissingEntitlement: OSStatus = -34018
/// `errSecUpgradePending` (-34019, SPI): a database upgrade is pending.
public let errSecUpgradePending: OSStatus = -34019
/// `errSecRestrictedAPI` (-34020): client is restricted.
public let errSecRestrictedAPI: OSStatus = -34020
/// `errSecVerifyFailed` (-67808): a cryptographic verification failure has occurred.
public let errSecVerifyFailed: OSStatus = -67808
/// `errSecInvalidKeyRef` (-67712).
public let errSecInvalidKeyRef: OSStatus = -67712
/// `errSecHostNameMismatch` (-67602): a host name mismatch has occurred (an SSL policy's host name is not
/// among the leaf certificate's names).
public let errSecHostNameMismatch: OSStatus = -67602
/// `errSecUnknownCriticalExtensionFlag` (-67603): there is an unknown critical extension flag.
public let errSecUnknownCriticalExtensionFlag: OSStatus = -67603
/// `errSecNoBasicConstraintsCA` (-67605): no basic CA constraints were found.
public let errSecNoBasicConstraintsCA: OSStatus = -67605
/// `errSecInvalidCertificateRef` (-67690): an invalid certificate reference was encountered (Apple's code for a
/// certificate that is not standards compliant).
public let errSecInvalidCertificateRef: OSStatus = -67690
/// `errSecCertificateExpired` (-67818): an expired certificate was detected (trust evaluation also answers it for
/// a certificate that is not yet valid).
public let errSecCertificateExpired: OSStatus = -67818
/// `errSecCertificateNotValidYet` (-67819): the certificate is not yet valid.
public let errSecCertificateNotValidYet: OSStatus = -67819
/// `errSecCertificateRevoked` (-67820): the certificate was revoked.
public let errSecCertificateRevoked: OSStatus = -67820
/// `errSecNotTrusted` (-67843): the trust policy was not trusted (a chain that ends in a root nobody trusts).
public let errSecNotTrusted: OSStatus = -67843
/// `errSecUnsupportedOperation` (-4): Apple's alias of `errSecUnimplemented` in the keychain paths.
public let errSecUnsupportedOperation: OSStatus = -4
#endif
