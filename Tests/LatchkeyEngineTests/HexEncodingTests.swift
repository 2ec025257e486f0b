import Foundation
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// `lowercaseHex` writes what `String(format: "%02x")` per byte wrote, which names keychain state files,
/// Secret Service item paths and content-hash pins already on disk.
struct HexEncodingTests {
    @Test func everyByteIsTwoLowerCaseDigitsAsFormatWroteThem() {
        let bytes = (0...255).map { UInt8($0) }
        #expect(bytes.lowercaseHex == bytes.map { String(format: "%02x", $0) }.joined())
        #expect(Data([0x00, 0x0f, 0xa0, 0xff]).lowercaseHex == "000fa0ff")
        #expect([UInt8]().lowercaseHex == "")
    }
}
