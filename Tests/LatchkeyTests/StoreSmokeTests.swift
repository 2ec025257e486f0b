import Foundation
import Latchkey
import Testing

struct StoreSmokeTests {
    @Test func addedPasswordReadsBack() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(
            .genericPassword,
            attributes: [.service: .string("svc"), .account: .string("alice")],
            data: SecretData(string: "s3cret")
        )
        let found = try store.findOne(ItemQuery(.genericPassword, attributes: [.account: .string("alice")]), withData: true)
        #expect(found.data == SecretData(string: "s3cret"))
        #expect(found.attributes[.service] == .string("svc"))
        #expect(found.persistentReference.count == 20)
    }
}
