#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Synchronization
import Testing
import LatchkeyTesting

struct ConcurrencyTests {
    @Test func eightThreadsTimesAThousandMixedCalls() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        LatchkeySecurity.withStore(store) { _ = Sec.add(Sec.password(account: "shared")) }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            LatchkeySecurity.withStore(store) {
                for index in 0..<1_000 {
                    let account = "t\(thread)-\(index % 10)"
                    let status: OSStatus
                    let allowed: Set<OSStatus>
                    switch index % 5 {
                    case 0:
                        status = Sec.add(Sec.password(account: account, data: "v\(index)"))
                        allowed = [errSecSuccess, errSecDuplicateItem]
                    case 1:
                        var query = Sec.password(account: account, data: nil)
                        query[kSecReturnData as String] = true
                        status = Sec.copy(query).0
                        allowed = [errSecSuccess, errSecItemNotFound]
                    case 2:
                        status = Sec.update(
                            Sec.password(account: account, data: nil),
                            [kSecValueData as String: Data("u".utf8)]
                        )
                        allowed = [errSecSuccess, errSecItemNotFound]
                    case 3:
                        var shared = Sec.password(account: "shared", data: nil)
                        shared[kSecReturnAttributes as String] = true
                        status = Sec.copy(shared).0
                        allowed = [errSecSuccess]
                    default:
                        status = Sec.delete(Sec.password(account: account, data: nil))
                        allowed = [errSecSuccess, errSecItemNotFound]
                    }
                    if !allowed.contains(status) {
                        failures.withLock { $0.append("thread \(thread) call \(index): \(status)") }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        LatchkeySecurity.withStore(store) {
            #expect(Sec.copy(Sec.password(account: "shared", data: nil)).0 == errSecSuccess)
        }
    }
}
#endif
