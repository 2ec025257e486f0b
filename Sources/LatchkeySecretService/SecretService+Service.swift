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
            var unlocked: [String] = []
            var locked: [String] = []
            if isLocked {
                // The keychain's items are listed as locked, from the index; Unlock then asks for the passphrase.
                for item in try searchItems(query, in: ObjectPath.sessionCollection) {
                    let path = ObjectPath.itemPath(item.collection, item.id)
                    if mayUse(item, caller: call.sender) { unlocked.append(path) } else { locked.append(path) }
                }
                locked += try lockedSearch(query, in: nil, caller: call.sender)
                return [.objectPaths(unlocked), .objectPaths(locked)]
            }
            for item in try searchItems(query, in: nil) {
                let path = ObjectPath.itemPath(item.collection, item.id)
                if mayUse(item, caller: call.sender) { unlocked.append(path) } else { locked.append(path) }
            }
            return [.objectPaths(unlocked), .objectPaths(locked)]
        case "Unlock":
            guard arguments.count == 1, let objects = arguments[0].objectPathsValue else {
                throw .invalidArguments("Unlock takes ao.")
            }
            return try unlock(objects, caller: call.sender)
        case "Lock":
            guard arguments.count == 1, let objects = arguments[0].objectPathsValue else {
                throw .invalidArguments("Lock takes ao.")
            }
            return try requestLock(objects, caller: call.sender)
        case "GetSecrets":
            guard arguments.count == 2, let paths = arguments[0].objectPathsValue,
                let sessionPath = arguments[1].stringValue
            else { throw .invalidArguments("GetSecrets takes (ao, o).") }
            let session = try session(at: sessionPath, caller: call.sender)
            var entries: [BusValue.DictionaryEntry] = []
            var anyLocked = false
            var labels: [String] = []
            for path in paths {
                guard case .item(let collection, let id) = resolve(path) else { continue }
                guard !isLocked(collection: collection) else {
                    anyLocked = true
                    continue
                }
                guard let (item, secret) = try? item(id, in: collection, withSecret: true), let secret,
                    mayUse(item, caller: call.sender)
                else { continue }
                entries.append(.init(.objectPath(path), try session.encode(secret, contentType: item.contentType)))
                labels.append(item.label)
            }
            if entries.isEmpty && anyLocked { throw .isLocked() }
            recordAccess(.read, caller: call.sender, labels: labels)
            return [.dictionary(key: "o", value: "(oayays)", entries)]
        case "ReadAlias":
            guard arguments.count == 1, let name = arguments[0].stringValue else {
                throw .invalidArguments("ReadAlias takes s.")
            }
            let collection = collections().collection(forAlias: name)
            return [.objectPath(collection.map(ObjectPath.collectionPath) ?? ObjectPath.none)]
        case "SetAlias":
            guard arguments.count == 2, let name = arguments[0].stringValue, let target = arguments[1].stringValue
            else { throw .invalidArguments("SetAlias takes (s, o).") }
            try setAlias(name, to: target, caller: call.sender)
            return []
        case "CreateCollection":
            guard arguments.count == 2, let properties = arguments[0].keyedValues, let alias = arguments[1].stringValue
            else { throw .invalidArguments("CreateCollection takes (a{sv}, s).") }
            let label = properties[Self.collectionInterface + ".Label"]?.stringValue ?? ""
            let path = try createCollection(label: label, alias: alias, caller: call.sender)
            return [.objectPath(path), .objectPath(ObjectPath.none)]
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

    /// Makes a collection kept in the keychain, owned by the caller's application (or returns the one `alias`
    /// already names, as the specification says); returns its path.
    private func createCollection(label: String, alias: String, caller: String) throws(SecretServiceError) -> String {
        var changed = collections()
        if !alias.isEmpty, let existing = changed.collection(forAlias: alias) {
            return ObjectPath.collectionPath(existing)
        }
        guard !isLocked else { throw .isLocked("The keychain is locked: unlock it before making a collection.") }
        if !alias.isEmpty { try Self.checkAlias(alias) }
        let name = changed.newName(for: label.isEmpty ? alias : label)
        changed.collections[name] = SecretCollections.Info(
            label: label,
            created: Date(),
            owner: owner(forCreator: caller)
        )
        if !alias.isEmpty { changed.aliases[alias] = name }
        try saveCollections(changed)
        let path = ObjectPath.collectionPath(name)
        emit(ObjectPath.servicePath, Self.serviceInterface, "CollectionCreated", [.objectPath(path)])
        emitCollectionsChanged()
        return path
    }

    /// Points `alias` at the collection at `target`, or removes it when `target` is "/".
    ///
    /// `default` (and `login`) never name the `session` collection, which is gone when the agent exits; an
    /// alias to `session` is kept in memory only. In confined mode the caller needs the consent of the owners
    /// of the collection the alias names now and of the one it is to name (`refusal` otherwise: the method
    /// has no prompt, so `Unlock` on another application's collection asks, and the user's things need a
    /// grant).
    private func setAlias(_ alias: String, to target: String, caller: String) throws(SecretServiceError) {
        try Self.checkAlias(alias)
        var changed = collections()
        var collection: String?
        if target != ObjectPath.none {
            guard case .collection(let name) = resolve(target) else {
                throw .noSuchObject("No such collection: \(target).")
            }
            collection = name
        }
        if collection == ObjectPath.sessionCollection && Self.keptAliases.contains(alias) {
            throw .invalidArguments(
                "The \(alias) alias must name a collection kept in the keychain: the session collection is "
                    + "gone when the agent exits."
            )
        }
        guard !isLocked else { throw .isLocked("The keychain is locked: unlock it before changing an alias.") }
        let current = changed.collection(forAlias: alias)
        let involved = [current, collection].compactMap { $0 }
        if let owner = missingConsent(for: involved, caller: caller).first {
            let named = involved.first { changed.owner(of: $0) == owner } ?? ObjectPath.login
            throw refusal(
                "Changing the alias \(alias) (of \(ObjectPath.collectionPath(named)))",
                owner: owner,
                caller: caller
            )
        }
        guard changed.aliases[alias] != collection else { return }
        changed.aliases[alias] = collection
        try saveCollections(changed)
    }

    /// The aliases that must name a collection kept in the keychain.
    private static let keptAliases: Set<String> = ["default", ObjectPath.login]

    /// Refuses an alias that cannot be a path element.
    private static func checkAlias(_ alias: String) throws(SecretServiceError) {
        guard ObjectPath.isElement(alias) else {
            throw .invalidArguments("An alias is letters, digits and underscores.")
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
