import Foundation
import Latchkey

/// One record of the agent's access log: who read, wrote or deleted which items, or what the user (or the
/// policy) decided about an access group, and when.
///
/// Entries never hold a secret. They do hold attribute values that name items (a generic password's service
/// and account, an internet password's server and account, a Secret Service item's label), which is why the
/// log is encrypted (docs/agent.md, "The access log").
public struct AccessLogEntry: Sendable, Hashable {
    /// What happened.
    public enum Event: UInt8, Sendable, Hashable, CaseIterable {
        /// A find that returned secrets, or the Secret Service's `GetSecret`/`GetSecrets`.
        case read = 1
        /// An add, upsert, update, restore (a batch's writes), or the Secret Service's `CreateItem`/`SetSecret`.
        case write = 2
        /// A delete, or the Secret Service's `Delete`.
        case delete = 3
        /// A decision about an access group: a prompt's answer, or a remembered denial.
        case access = 4

        /// The name printed and written as JSON.
        public var name: String {
            switch self {
            case .read: "read"
            case .write: "write"
            case .delete: "delete"
            case .access: "access"
            }
        }
    }

    /// Why the access was allowed or refused.
    public enum Decision: UInt8, Sendable, Hashable, CaseIterable {
        /// The access policy (the identity's own group, a grant, or an earlier "Always allow").
        case policy = 1
        /// The user answered "Allow once".
        case once = 2
        /// The user answered "Always allow" (remembered in the policy).
        case always = 3
        /// Refused this time: "Deny", no answer, no prompter.
        case denied = 4
        /// Refused and remembered ("Deny always"), or refused at once by a remembered denial.
        case deniedAlways = 5

        /// The name printed and written as JSON.
        public var name: String {
            switch self {
            case .policy: "policy"
            case .once: "once"
            case .always: "always"
            case .denied: "denied"
            case .deniedAlways: "denied-always"
            }
        }
    }

    /// Which door the request came through.
    public enum Channel: UInt8, Sendable, Hashable, CaseIterable {
        /// The agent's socket (the CLI, `SecItem*`, the typed API).
        case socket = 1
        /// The Secret Service on D-Bus.
        case secretService = 2

        /// The name written as JSON.
        public var name: String {
            switch self {
            case .socket: "socket"
            case .secretService: "secret-service"
            }
        }
    }

    /// An item, named by its class and primary-key attributes (or a Secret Service item by its label).
    public struct Item: Sendable, Hashable {
        /// The class code (`genp`, `inet`, `cert`, `keys`), or `secret-service`.
        public var itemClass: String
        /// The naming attributes, in order: short name (`svce`, `acct`, `srvr` …, or `label`) and value.
        public var fields: [Field]

        /// Makes an item.
        public init(itemClass: String, fields: [Field]) {
            self.itemClass = itemClass
            self.fields = fields
        }
    }

    /// One naming attribute of an item.
    public struct Field: Sendable, Hashable {
        /// The attribute's short name.
        public var name: String
        /// Its value as text (bytes that are not UTF-8 are written as `0x` and hexadecimal).
        public var value: String

        /// Makes a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The application behind a request, computed once per connection (or Secret Service caller).
    public struct Application: Sendable, Hashable {
        /// The identity: the executable, or the script an interpreter runs (absolute, symlink-free).
        public var path: String
        /// The lowercase hexadecimal SHA-256 of `path`'s content, `nil` when it could not be read.
        public var sha256: String?
        /// The process id.
        public var process: Int32
        /// The process's executable names from its oldest logged ancestor to itself (`code`, `node`,
        /// `secret-tool`), from `/proc/<pid>/stat`'s parent ids; at most 8 names, never `init`.
        public var ancestry: [String]

        /// Makes an application.
        public init(path: String, sha256: String?, process: Int32, ancestry: [String]) {
            self.path = path
            self.sha256 = sha256
            self.process = process
            self.ancestry = ancestry
        }
    }

    /// When it happened.
    public var time: Date
    /// What happened.
    public var event: Event
    /// The items read, written or deleted (empty for `access`).
    public var items: [Item]
    /// The access group decided on (`access` events), `nil` otherwise.
    public var group: String?
    /// Who asked.
    public var application: Application
    /// Why it was allowed or refused.
    public var decision: Decision
    /// Which door the request came through.
    public var channel: Channel

    /// Makes an entry.
    public init(
        time: Date,
        event: Event,
        items: [Item],
        group: String? = nil,
        application: Application,
        decision: Decision,
        channel: Channel
    ) {
        self.time = time
        self.event = event
        self.items = items
        self.group = group
        self.application = application
        self.decision = decision
        self.channel = channel
    }
}

extension AccessLogEntry.Item {
    /// The naming attributes of each class, in the order they are shown.
    private static func namingAttributes(of itemClass: ItemClass) -> [AttributeName] {
        switch itemClass {
        case .genericPassword: [.service, .account]
        case .internetPassword: [.server, .account, .securityDomain, .protocol, .port, .path]
        case .certificate, .identity: [.label]
        case .key: [.label, .applicationTag]
        }
    }

    /// The item `attributes` of class `itemClass` name: its naming attributes that are present and not empty.
    init(_ itemClass: ItemClass, attributes: [AttributeName: AttributeValue]) {
        var fields: [AccessLogEntry.Field] = []
        for name in Self.namingAttributes(of: itemClass) {
            guard let value = attributes[name], let text = Self.text(value) else { continue }
            fields.append(AccessLogEntry.Field(name: name.rawValue, value: text))
        }
        self.init(itemClass: itemClass.rawValue, fields: fields)
    }

    /// A value as log text; `nil` for an empty one (an absent port, an empty path).
    private static func text(_ value: AttributeValue) -> String? {
        switch value {
        case .string(let text): return text.isEmpty ? nil : text
        case .data(let bytes):
            guard !bytes.isEmpty else { return nil }
            if let text = String(validating: bytes, as: UTF8.self) { return text }
            return "0x" + bytes.lowercaseHex
        case .number(let number): return number == 0 ? nil : String(number)
        case .double(let number): return String(number)
        case .date(let date): return String(date.timeIntervalSince1970)
        }
    }
}
