import Crypto
import Foundation
import Latchkey

/// `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`.
extension SecretService {
    func handleService(_ call: BusCall) throws(SecretServiceError) -> [BusValue] {
        let arguments = call.arguments
        switch call.member {
        case "OpenSession":
            guard arguments.count == 2, let algorithm = arguments[0].stringValue else {
                throw .invalidArguments("OpenSession takes (sv).")
            }
            return try openSession(algorithm: algorithm, input: arguments[1], caller: call.sender)
        case "SearchItems":
            guard arguments.count == 1, let query = arguments[0].stringDictionaryValue else {
                throw .invalidArguments("SearchItems takes a{ss}.")
            }
            let found = try keychain { () throws(KeychainError) in try items.search(query) }
            var unlocked: [String] = []
            var locked: [String] = []
            for item in found {
                if mayUse(item, caller: call.sender) {
                    unlocked.append(ObjectPath.itemPath(item.id))
                } else {
                    locked.append(ObjectPath.itemPath(item.id))
                }
            }
            return [.objectPaths(unlocked), .objectPaths(locked)]
        case "Unlock":
            guard arguments.count == 1, let objects = arguments[0].objectPathsValue else {
                throw .invalidArguments("Unlock takes ao.")
            }
            return try unlock(objects, caller: call.sender)
        case "Lock":
            guard arguments.count == 1, arguments[0].objectPathsValue != nil else {
                throw .invalidArguments("Lock takes ao.")
            }
            backend.lock()
            announceLockState()
            return [.objectPaths([ObjectPath.collectionPath]), .objectPath(ObjectPath.none)]
        case "GetSecrets":
            guard arguments.count == 2, let paths = arguments[0].objectPathsValue,
                let sessionPath = arguments[1].stringValue
            else { throw .invalidArguments("GetSecrets takes (ao, o).") }
            let session = try session(at: sessionPath, caller: call.sender)
            var entries: [BusValue.DictionaryEntry] = []
            for path in paths {
                guard case .item(let id) = ObjectPath(path) else { continue }
                let found = try? keychain { () throws(KeychainError) in try items.item(id: id, withSecret: true) }
                guard let (item, secret) = found, let secret, mayUse(item, caller: call.sender) else { continue }
                entries.append(.init(.objectPath(path), try session.encode(secret, contentType: item.contentType)))
            }
            if entries.isEmpty && !paths.isEmpty && isLocked { throw .isLocked() }
            return [.dictionary(key: "o", value: "(oayays)", entries)]
        case "ReadAlias":
            guard arguments.count == 1, let name = arguments[0].stringValue else {
                throw .invalidArguments("ReadAlias takes s.")
            }
            return [.objectPath(name == "default" || name == "login" ? ObjectPath.collectionPath : ObjectPath.none)]
        case "SetAlias":
            guard arguments.count == 2, let name = arguments[0].stringValue, let target = arguments[1].stringValue
            else { throw .invalidArguments("SetAlias takes (s, o).") }
            guard name == "default", ObjectPath(target) == .collection else {
                throw .notSupported("Only the default alias, on the login collection, exists for now.")
            }
            return []
        case "CreateCollection":
            guard arguments.count == 2, let alias = arguments[1].stringValue else {
                throw .invalidArguments("CreateCollection takes (a{sv}, s).")
            }
            guard alias == "default" || alias == "login" else {
                throw .notSupported("Latchkey serves one collection, the login keychain; it creates no other yet.")
            }
            return [.objectPath(ObjectPath.collectionPath), .objectPath(ObjectPath.none)]
        default:
            throw .unknownMethod("No method \(call.member) on the Secret Service.")
        }
    }

    private func openSession(
        algorithm: String,
        input: BusValue,
        caller: String
    ) throws(SecretServiceError)
        -> [BusValue]
    {
        switch SecretSession.Algorithm(rawValue: algorithm) {
        case .plain:
            let path = openSession(owner: caller, key: nil)
            return [.variant(.string("")), .objectPath(path)]
        case .dhAES:
            guard let peerKey = input.bytesValue else {
                throw .invalidArguments("dh-ietf1024-sha256-aes128-cbc-pkcs7 takes the client's public key (ay).")
            }
            let exchange = try DiffieHellmanExchange.respond(to: peerKey)
            let path = openSession(owner: caller, key: exchange.key)
            return [.variant(.bytes(exchange.publicKey)), .objectPath(path)]
        case nil:
            throw .notSupported(
                "Unknown session algorithm; this service offers plain and \(SecretSession.Algorithm.dhAES.rawValue)."
            )
        }
    }

    /// Runs a keychain call, turning its error into the Secret Service's.
    func keychain<T>(_ body: () throws(KeychainError) -> T) throws(SecretServiceError) -> T {
        do {
            return try body()
        } catch {
            throw SecretServiceError(error)
        }
    }
}
