// swift-certificates makes a certificate; Latchkey's Apple face reads it back. Both libraries in one
// executable, with route (a)'s import (docs/apple-compatibility.md, "Porting routes").
import Crypto
import Foundation
import SwiftASN1
import X509

#if canImport(Darwin)
import Security
#else
import LatchkeySecurity
#endif

let key = P256.Signing.PrivateKey()
let name = try DistinguishedName {
    OrganizationName("Example Org")
    CommonName("x509-sample.example")
}
let now = Date()
let made = try Certificate(
    version: .v3,
    serialNumber: Certificate.SerialNumber(),
    publicKey: .init(key.publicKey),
    notValidBefore: now - 60,
    notValidAfter: now + 3600,
    issuer: name,
    subject: name,
    signatureAlgorithm: .ecdsaWithSHA256,
    extensions: try Certificate.Extensions {
        SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
    },
    issuerPrivateKey: .init(key)
)
var serializer = DER.Serializer()
try serializer.serialize(made)
let der = Data(serializer.serializedBytes)

guard let certificate = SecCertificateCreateWithData(nil, der as CFData) else {
    FileHandle.standardError.write(Data("SecCertificateCreateWithData refused swift-certificates' DER\n".utf8))
    exit(1)
}
let summary = SecCertificateCopySubjectSummary(certificate).map { $0 as String } ?? "(none)"
// Apple's serial is the INTEGER's content octets (a leading zero when the high bit is set), swift-certificates'
// the magnitude.
let serial = SecCertificateCopySerialNumberData(certificate, nil).map { Data(referencing: $0) } ?? Data()
let serialMatches = Array(serial.drop { $0 == 0 }) == Array(made.serialNumber.bytes.drop { $0 == 0 })
let keyMatches =
    SecCertificateCopyKey(certificate).flatMap { SecKeyCopyExternalRepresentation($0, nil) }
    .map { Data(referencing: $0) } == key.publicKey.x963Representation
let sameBytes = Data(referencing: SecCertificateCopyData(certificate)) == der
print("with X509: \(summary), serial \(serialMatches), key \(keyMatches), DER \(sameBytes)")
