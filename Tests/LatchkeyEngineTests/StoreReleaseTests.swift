import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// A `KeychainStore` released without `close()` leaves none of the keychain's descriptors open (the file,
/// its WAL and shared memory): a server that opens a store per request must not run out of descriptors.
struct StoreReleaseTests {
    /// The descriptors of this process that name a file starting with `path`.
    static func descriptors(naming path: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { entry in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry)
            return target?.hasPrefix(path) == true
        }
    }

    @Test func aReleasedStoreClosesEveryDescriptorOfItsFile() throws {
        let keychain = TemporaryKeychain()
        do {
            let store = try keychain.open()
            try store.add(.genericPassword, attributes: [.service: .string("s")], data: SecretData(string: "v"))
            // Point reads go through the store's dedicated read connection, the one that used to stay open.
            for _ in 0..<3 {
                _ = try store.findOne(ItemQuery(.genericPassword), withData: true)
            }
            #expect(try Self.descriptors(naming: keychain.path) > 0)
        }
        #expect(try Self.descriptors(naming: keychain.path) == 0)
    }
}
