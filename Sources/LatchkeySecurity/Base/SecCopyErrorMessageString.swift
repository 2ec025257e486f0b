#if !canImport(Darwin)
import Foundation
import Latchkey

/// `SecCopyErrorMessageString`: the human-readable text of an OSStatus.
///
/// Texts are Apple's (`SecBase.h` comments, which Apple's strings table is generated from); codes with no
/// entry there — including `errSecInternalComponent` (-2070), `errSecInternal` (-26276) and any unknown
/// value — give `"OSStatus <n>"`, as Apple does for codes missing from its table.
///
/// - Parameters:
///   - status: The code.
///   - reserved: Must be `nil` (ignored).
/// - Returns: The message; never `nil` here (Apple may return `nil`).
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    let message = SecErrorMessages.extra[status] ?? KeychainError.Code(rawValue: status).statusMessage
    return message as NSString
}

/// `SecBase.h` texts of the codes the core's table (`KeychainError.Code.statusMessage`) does not hold.
enum SecErrorMessages {
    static let extra: [OSStatus: String] = [
        -34: "The disk is full.",
        -49: "File already open with write permission.",
        -61: "Write permissions error.",
        -25294: "The specified keychain could not be found.",
        -25295: "The specified keychain is not a valid keychain file.",
        -25296: "A keychain with the same name already exists.",
        -25297: "The specified callback function is already installed.",
        -25298: "The specified callback function is not valid.",
        -25301: "There is not enough memory available to use the specified item.",
        -25302: "This item contains information which is too large or in a format that cannot be displayed.",
        -25305: "Unable to search the current keychain.",
        -25309: "The specified attribute could not be modified.",
        -25310: "This keychain was created by a different version of the system software and cannot be opened.",
        -25311: "This item specifies a key size which is too large or too small.",
        -25312:
            "A required component (data storage module) could not be loaded. You may need to restart your computer.",
        -25313: "A required component (certificate module) could not be loaded. You may need to restart your computer.",
        -25314: "A required component (policy module) could not be loaded. You may need to restart your computer.",
        -25317: "The contents of this item cannot be modified.",
        -25318: "One or more certificates required to validate this certificate cannot be found.",
        -25319: "The specified preferences domain is not valid.",
        -25320: "In dark wake, no UI possible",
        -25240: "The specified access control list is not in standard (simple) form.",
        -25241: "The specified policy cannot be found.",
        -25242: "The specified trust setting is invalid.",
        -25243: "The specified item has no access control.",
        -25244: "Invalid attempt to change the owner of this item.",
        -25245: "No trust results are available.",
        -25256: "Import/Export format unsupported.",
        -25257: "Unknown format in import.",
        -25258: "Key material must be wrapped for export.",
        -25259: "An attempt was made to import multiple private keys.",
        -25260: "Passphrase is required for import/export.",
        -25261: "The password reference was invalid.",
        -25262: "The Trust Settings Record was corrupted.",
        -25263: "No Trust Settings were found.",
        -25264: "MAC verification failed during PKCS12 import (wrong password?)",
        -67712: "An invalid key was encountered.",
        -67808: "A cryptographic verification failure has occurred.",
        -67602: "A host name mismatch has occurred.",
        -67603: "There is an unknown critical extension flag.",
        -67605: "No basic CA constraints were found.",
        -67690: "An invalid certificate reference was encountered.",
        -67818: "An expired certificate was detected.",
        -67819: "The certificate is not yet valid.",
        -67820: "The certificate was revoked.",
        -67843: "The trust policy was not trusted.",
    ]
}
#endif
