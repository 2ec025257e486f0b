#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeyLocalAuthentication

/// Which `SecItem*` function a dictionary was given to (it decides which keys are allowed).
enum SecItemCall {
    case add, copyMatching, update, updateAttributes, delete
}

/// `kSecReturn*` flags.
struct ReturnFlags: OptionSet {
    let rawValue: Int
    static let data = ReturnFlags(rawValue: 1)
    static let attributes = ReturnFlags(rawValue: 2)
    static let ref = ReturnFlags(rawValue: 4)
    static let persistentRef = ReturnFlags(rawValue: 8)
}

/// `kSecUseAuthenticationUI` values.
enum AuthenticationUI {
    case allow, fail, skip
}

/// A keychain dictionary translated to the typed model, with the first error of each validation phase
/// (Apple checks client-side keys before entitlements, and entitlements before the rest, docs/apple-semantics.md §5).
struct ItemRequest {
    var itemClass: ItemClass?
    var attributes: [AttributeName: AttributeValue] = [:]
    var synchronizableAny = false
    var secret: Data?
    var persistentReference: Data?
    var returns: ReturnFlags = []
    var limit: MatchLimit?
    /// Match keys other than `kSecMatchLimit`, and `kSecUseItemList` (see `SecItemAdd`, note A).
    var otherMatchKeys: [String] = []
    var hostOrSubdomain: String?
    var authenticationUI: AuthenticationUI = .allow
    var authenticationContext: LAContext?
    var operationPrompt: String?
    var accessControl: SecAccessControl?
    /// The `kSecValueRef` object, folded into attributes and secret after parsing (`applyValueRef`).
    var valueRef: AnyObject?
    /// An explicit `kSecAttrAccessGroup` string, as given.
    var explicitAccessGroup: String?
    /// Errors Apple's client library raises before talking to the daemon.
    var clientError: KeychainError?
    /// Errors of the daemon's dictionary parser.
    var parseError: KeychainError?

    /// The typed query for the core.
    var query: ItemQuery {
        var filters = attributes
        filters[.accessControl] = nil
        return ItemQuery(
            itemClass,
            attributes: filters,
            synchronizable: synchronizableAny ? .any : .no,
            persistentReference: persistentReference,
            hostOrSubdomain: hostOrSubdomain,
            identity: (valueRef as? SecIdentity).map {
                IdentityReference(certificate: $0.certificate.der, keyLabel: $0.privateKey.applicationLabel)
            }
        )
    }

    /// How the core treats items whose secret needs user authentication (`kSecUseAuthenticationUI`):
    /// `allow` asks (the face authenticates and repeats), `fail` and `skip` as named.
    var authenticationPolicy: AuthenticationPolicy {
        switch authenticationUI {
        case .allow: .ask
        case .fail: .fail
        case .skip: .skip
        }
    }

    mutating func client(_ message: String) {
        if clientError == nil { clientError = KeychainError(.param, message) }
    }

    private mutating func fail(_ code: KeychainError.Code, _ message: String) {
        if parseError == nil { parseError = KeychainError(code, message) }
    }

    static let queryKeyLimit = 128

    /// Translates `dictionary` for `call`.
    ///
    /// - Parameter itemClass: For `.updateAttributes`, the class named by the update's query.
    static func parse(_ dictionary: NSDictionary, for call: SecItemCall, itemClass: ItemClass? = nil) -> ItemRequest {
        var request = ItemRequest()
        var entries: [(key: String, value: Any)] = []
        entries.reserveCapacity(dictionary.count)
        for (key, value) in ValueBridge.entries(of: dictionary) {
            guard let key = ValueBridge.string(key) else {
                request.fail(.param, "A dictionary key is not a string.")
                continue
            }
            guard let value = ValueBridge.unwrap(value) else {
                request.fail(.param, "The value of '\(key)' is null.")
                continue
            }
            entries.append((key, value))
        }
        if call == .updateAttributes {
            request.itemClass = itemClass
            for entry in entries { request.parseUpdate(entry.key, entry.value) }
            request.applyAccessControl(call)
            return request
        }
        if entries.count > queryKeyLimit { request.fail(.param, "Past query key limit (\(queryKeyLimit) keys).") }
        request.attributes.reserveCapacity(entries.count)
        request.resolveClass(entries)
        request.inferClassFromValueRef(entries)
        for entry in entries where entry.key != "class" && entry.key != "v_PersistentRef" {
            request.parseEntry(entry.key, entry.value, call)
        }
        request.applyValueRef(call)
        if request.itemClass == nil, request.parseError == nil {
            request.fail(.param, "The dictionary has no kSecClass.")
        }
        if call == .copyMatching, request.persistentReference != nil, !request.attributes.isEmpty {
            request.fail(.param, "kSecValuePersistentRef cannot be combined with attributes in SecItemCopyMatching.")
        }
        request.applyAccessControl(call)
        return request
    }

    /// Finds the class from `kSecClass` or from a persistent reference's first four bytes.
    private mutating func resolveClass(_ entries: [(key: String, value: Any)]) {
        if let value = entries.first(where: { $0.key == "class" })?.value {
            if let code = ValueBridge.string(value), let named = ItemClass(rawValue: code) {
                itemClass = named
            } else {
                fail(.noSuchClass, "kSecClass names no known item class.")
            }
        }
        guard let value = entries.first(where: { $0.key == "v_PersistentRef" })?.value else { return }
        guard let reference = ValueBridge.data(value) else {
            fail(.param, "kSecValuePersistentRef must be Data.")
            return
        }
        persistentReference = reference
        guard reference.count >= 4, let code = String(data: reference.prefix(4), encoding: .ascii),
            let referenced = ItemClass(rawValue: code)
        else {
            fail(.param, "kSecValuePersistentRef is not a persistent reference.")
            return
        }
        if let itemClass, itemClass != referenced {
            fail(.param, "kSecValuePersistentRef names another class than kSecClass.")
        }
        itemClass = itemClass ?? referenced
    }

    private mutating func parseEntry(_ key: String, _ value: Any, _ call: SecItemCall) {
        if key.utf8.count == 4 {
            parseAttribute(key, value)
            return
        }
        switch key.first {
        case "m": parseMatch(key, value, call)
        case "r": parseReturn(key, value, call)
        case "u": parseUse(key, value, call)
        case "v": parseValue(key, value)
        case "f": break  // internal callback keys: ignored, as by Apple's parser
        default: fail(.param, "Unknown key '\(key)'.")
        }
    }

    mutating func parseAttribute(_ key: String, _ value: Any) {
        if key == "nleg" { return }  // kSecUseDataProtectionKeychain: accepted and ignored
        guard let itemClass else { return }
        let name = AttributeName(rawValue: key)
        let schema = ItemSchema.of(itemClass)
        guard let spec = schema.attributes[name] else {
            fail(.noSuchAttribute, "Attribute '\(key)' does not exist for class '\(itemClass.rawValue)'.")
            return
        }
        if name == .synchronizable, ValueBridge.string(value) == "syna" {
            synchronizableAny = true
            return
        }
        if name == .accessControl {
            guard let control = value as? SecAccessControl else {
                client("Unexpected type of kSecAttrAccessControl attribute.")
                return
            }
            accessControl = control
            return
        }
        // A CFBoolean is a number only for number-kind attributes
        // (docs/apple-semantics.md §1.2); elsewhere it is rejected.
        if ValueBridge.boolean(value) != nil, spec.kind != .number {
            fail(.param, "Attribute '\(key)' does not take a boolean.")
            return
        }
        guard let converted = ValueBridge.attributeValue(value, kind: spec.kind) else {
            fail(.param, "Attribute '\(key)' has a value of the wrong type.")
            return
        }
        do {
            var coerced = try schema.coerce(converted, for: name)
            // A full DER Name as kSecAttrIssuer is taken in its normalized contents form
            // (docs/apple-semantics.md §2.1).
            if name == .issuer, let name = coerced.dataValue,
                let contents = CertificateName.normalizedContents(ofEncodedName: [UInt8](name))
            {
                coerced = .data(Data(contents))
            }
            attributes[name] = coerced
            if name == .accessGroup { explicitAccessGroup = coerced.stringValue }
        } catch {
            fail(error.code, error.message)
        }
    }

    private mutating func parseMatch(_ key: String, _ value: Any, _ call: SecItemCall) {
        switch call {
        case .update:
            fail(.param, "Match keys ('\(key)') are not allowed in the query of SecItemUpdate.")
            return
        case .delete:
            fail(.param, "Match keys ('\(key)') are not allowed in SecItemDelete.")
            return
        case .add:
            otherMatchKeys.append(key)
            return
        case .copyMatching, .updateAttributes:
            break
        }
        switch key {
        case "m_Limit":
            if let text = ValueBridge.string(value) {
                switch text {
                case "m_LimitOne": limit = .one
                case "m_LimitAll": limit = .all
                default: fail(.param, "kSecMatchLimit must be kSecMatchLimitOne, kSecMatchLimitAll or a number.")
                }
            } else if ValueBridge.boolean(value) == nil, let number = ValueBridge.number(value)?.numberValue,
                number >= 1
            {
                limit = number == 1 ? .one : .count(Int(clamping: number))
            } else {
                fail(.param, "kSecMatchLimit must be kSecMatchLimitOne, kSecMatchLimitAll or a positive number.")
            }
        case "m_HostOrSubdomainOfHost":
            guard let host = ValueBridge.string(value) else {
                fail(.param, "kSecMatchHostOrSubdomainOfHost must be a string.")
                return
            }
            hostOrSubdomain = host
        default:
            otherMatchKeys.append(key)
        }
    }

    private mutating func parseReturn(_ key: String, _ value: Any, _ call: SecItemCall) {
        let flag: ReturnFlags
        switch key {
        case "r_Data": flag = .data
        case "r_Attributes": flag = .attributes
        case "r_Ref": flag = .ref
        case "r_PersistentRef": flag = .persistentRef
        default:
            fail(.param, "Unknown return key '\(key)'.")
            return
        }
        if call == .delete { return }  // return keys are ignored by SecItemDelete
        if call == .update {
            fail(.param, "Return keys ('\(key)') are not allowed in the query of SecItemUpdate.")
            return
        }
        guard let enabled = ValueBridge.boolean(value) else {
            fail(.param, "The value of '\(key)' must be a CFBoolean (kCFBooleanTrue or true), not a number.")
            return
        }
        if enabled { returns.insert(flag) }
    }

    private mutating func parseUse(_ key: String, _ value: Any, _ call: SecItemCall) {
        switch key {
        case "u_AuthUI":
            switch ValueBridge.string(value) {
            case "u_AuthUIA": authenticationUI = .allow
            case "u_AuthUIF": authenticationUI = .fail
            case "u_AuthUIS":
                if call == .copyMatching {
                    authenticationUI = .skip
                } else {
                    client("kSecUseAuthenticationUISkip is allowed only for SecItemCopyMatching.")
                }
            default: fail(.param, "kSecUseAuthenticationUI has an unknown value.")
            }
        case "u_NoAuthUI":
            guard let flag = ValueBridge.boolean(value) else {
                fail(.param, "kSecUseNoAuthenticationUI must be a CFBoolean.")
                return
            }
            if flag { authenticationUI = .fail }
        case "u_AuthCtx":
            guard let context = value as? LAContext else {
                client("kSecUseAuthenticationContext must be an LAContext.")
                return
            }
            authenticationContext = context
        case "u_CredRef":
            client("kSecUseCredentialReference is not supported; pass an LAContext under kSecUseAuthenticationContext.")
        case "u_OpPrompt":
            guard let prompt = ValueBridge.string(value) else {
                client("kSecUseOperationPrompt must be a string.")
                return
            }
            operationPrompt = prompt
        case "u_ItemList":
            switch call {
            case .delete: break  // never checked by Apple's delete path
            case .add: otherMatchKeys.append(key)
            case .copyMatching, .update, .updateAttributes: fail(.param, "kSecUseItemList is not supported.")
            }
        case "u_Tomb":
            break  // SPI: tombstone override, ignored
        default:
            fail(.param, "Unknown use key '\(key)'.")
        }
    }

    private mutating func parseValue(_ key: String, _ value: Any) {
        switch key {
        case "v_Data":
            guard let data = ValueBridge.data(value) else {
                fail(.param, "kSecValueData must be Data (a String is rejected, as by Apple).")
                return
            }
            secret = data
        case "v_Ref":
            valueRef = value as AnyObject
        default:
            fail(.param, "Unknown value key '\(key)'.")
        }
    }

    /// `attributesToUpdate`: attributes and `kSecValueData` only; anything else is `errSecNoSuchAttr`.
    private mutating func parseUpdate(_ key: String, _ value: Any) {
        if key == "v_Data" {
            parseValue(key, value)
        } else if key == "ggrp" {
            fail(.param, "kSecAttrSharingGroup cannot be updated.")
        } else if key == "sync", ValueBridge.string(value) == "syna" {
            fail(.param, "kSecAttrSynchronizableAny is not a value an item can take.")
        } else if key.utf8.count == 4 {
            parseAttribute(key, value)
        } else {
            fail(.noSuchAttribute, "'\(key)' is not an attribute that SecItemUpdate can change.")
        }
    }

    /// Folds `kSecAttrAccessControl` into the attributes of an add or update (queries ignore it).
    private mutating func applyAccessControl(_ call: SecItemCall) {
        guard let control = accessControl, call == .add || call == .updateAttributes else { return }
        if attributes[.accessible] != nil {
            fail(.param, "Conflicting kSecAttrAccessible and kSecAttrAccessControl.")
            return
        }
        if attributes[.synchronizable]?.numberValue == 1 {
            fail(.param, "An item with kSecAttrAccessControl is not synchronizable.")
            return
        }
        attributes[.accessible] = .string(control.protection)
        attributes[.accessControl] = .data(control.serialized)
    }
}
#endif
