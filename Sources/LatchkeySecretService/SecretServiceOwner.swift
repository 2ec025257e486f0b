import Foundation

/// The connection that owns `org.freedesktop.secrets` on a session bus: its unique name, process,
/// executable, which provider that is, and the lock state of its collections, as `latchkey agent --replace`
/// and `latchkey doctor` see them.
///
/// ```swift
/// if let owner = try SecretServiceOwner.current(address: address), !owner.unlockedCollections.isEmpty { … }
/// ```
public struct SecretServiceOwner: Sendable, Hashable {
    /// Which program a Secret Service provider is, by its executable's file name.
    public enum Provider: String, Sendable, Hashable, CaseIterable {
        /// `latchkey agent --secret-service`.
        case latchkey
        /// `gnome-keyring-daemon` (it requests the name without `ALLOW_REPLACEMENT`).
        case gnomeKeyring = "gnome-keyring"
        /// KeePassXC's Secret Service integration.
        case keePassXC = "KeePassXC"
        /// KDE's `kwalletd5`/`kwalletd6`/`ksecretd`.
        case kWallet = "KWallet"
        /// oo7's `oo7-daemon`.
        case oo7
        /// Any other program, or one whose executable cannot be read.
        case other

        /// The provider an executable is, by its file name.
        public init(executable: String?) {
            let name = executable.map { URL(fileURLWithPath: $0).lastPathComponent.lowercased() } ?? ""
            switch name {
            case "latchkey": self = .latchkey
            case "gnome-keyring-daemon": self = .gnomeKeyring
            case "keepassxc": self = .keePassXC
            case "kwalletd5", "kwalletd6", "ksecretd": self = .kWallet
            case "oo7-daemon": self = .oo7
            default: self = .other
            }
        }
    }

    /// One collection of the owner and whether it is locked.
    public struct Collection: Sendable, Hashable {
        /// The collection's object path.
        public var path: String
        /// Its `Locked` property.
        public var locked: Bool
        /// Its last path element (`login`).
        public var name: String { String(path.split(separator: "/").last ?? "") }
    }

    /// The owner's unique bus name (`:1.42`).
    public var uniqueName: String
    /// Its process id (`GetConnectionUnixProcessID`), when the bus says.
    public var process: Int32?
    /// Its executable (`/proc/<pid>/exe`), when readable.
    public var executable: String?
    /// The collections it lists, or `nil` when it did not answer (`collectionsError` says why).
    public var collections: [Collection]?
    /// Why the collections are unknown.
    public var collectionsError: String?

    /// Which program the owner is.
    public var provider: Provider { Provider(executable: executable) }

    /// The names of the collections that are unlocked now, leaving out `session` (a provider's in-memory
    /// collection, unlocked by design and lost with the process whatever replaces it).
    public var unlockedCollections: [String] {
        (collections ?? []).filter { !$0.locked && $0.name != "session" }.map(\.name)
    }

    /// The owner in words: `gnome-keyring-daemon (pid 12, /usr/bin/gnome-keyring-daemon, :1.3)`.
    public var summary: String {
        let program = executable.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "a program"
        let details = [process.map { "pid \($0)" }, executable, uniqueName].compactMap(\.self)
        return "\(program) (\(details.joined(separator: ", ")))"
    }

    /// The owner of `org.freedesktop.secrets` on the bus at `address` now, or `nil` when nobody owns it.
    ///
    /// - Parameter collections: Whether to ask the owner for its collections and their `Locked` property.
    /// - Throws: `SecretServiceError.failed` when the bus cannot be reached.
    public static func current(address: String, collections: Bool = true) throws(SecretServiceError) -> Self? {
        let bus = try Bus(address: address, logger: .init(label: "latchkey.secret-service.owner"))
        return lookup(on: bus, collections: collections)
    }

    /// The owner of `org.freedesktop.secrets` as seen from `bus`, or `nil` when nobody owns it.
    static func lookup(on bus: Bus, collections: Bool) -> Self? {
        let daemon = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
        let unique: String
        do {
            let reply = try bus.call(
                daemon.0,
                path: daemon.1,
                interface: daemon.2,
                member: "GetNameOwner",
                arguments: [.string(SecretService.busName)]
            )
            guard let name = reply.first?.stringValue else { return nil }
            unique = name
        } catch {
            return nil
        }
        var owner = Self(uniqueName: unique)
        if let reply = try? bus.call(
            daemon.0,
            path: daemon.1,
            interface: daemon.2,
            member: "GetConnectionUnixProcessID",
            arguments: [.string(unique)]
        ), let process = reply.first?.uint32Value {
            owner.process = Int32(bitPattern: process)
            owner.executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process)/exe")
        }
        if collections { owner.readCollections(on: bus) }
        return owner
    }

    /// Asks the owner for `Collections` and each one's `Locked`.
    private mutating func readCollections(on bus: Bus) {
        do throws(SecretServiceError) {
            let reply = try bus.call(
                uniqueName,
                path: ObjectPath.servicePath,
                interface: "org.freedesktop.DBus.Properties",
                member: "Get",
                arguments: [.string(SecretService.serviceInterface), .string("Collections")]
            )
            guard let paths = reply.first?.objectPathsValue else {
                throw .failed("its Collections property is not a list of object paths")
            }
            var found: [Collection] = []
            for path in paths {
                let locked = try bus.call(
                    uniqueName,
                    path: path,
                    interface: "org.freedesktop.DBus.Properties",
                    member: "Get",
                    arguments: [.string(SecretService.collectionInterface), .string("Locked")]
                )
                guard let value = locked.first?.booleanValue else {
                    throw .failed("the Locked property of \(path) is not a boolean")
                }
                found.append(Collection(path: path, locked: value))
            }
            collections = found
        } catch {
            collectionsError = error.message.isEmpty ? error.name : error.message
        }
    }
}

extension SecretServiceOwner {
    /// The section of docs/install.md with the takeover steps.
    static let takeoverDocs = "docs/install.md, \"Taking over org.freedesktop.secrets safely\""

    /// The commands that stop this owner's Secret Service so that Latchkey can take the name.
    public var stopCommand: String {
        let kill = process.map { "kill \($0)" } ?? "stop it"
        switch provider {
        case .gnomeKeyring:
            return "`systemctl --user stop gnome-keyring-daemon.service gnome-keyring-daemon.socket` (Debian's "
                + "units), or `gnome-keyring-daemon --replace --components=pkcs11,ssh` (keeps its SSH and PKCS#11 "
                + "parts), or `\(kill)`"
        case .latchkey, .keePassXC, .kWallet, .oo7, .other:
            return "`\(kill)`"
        }
    }

    /// Why `latchkey agent --replace` refuses while collections are unlocked, and the flag that replaces anyway.
    var unlockedRefusal: String {
        let names = unlockedCollections.map { "'\($0)'" }.joined(separator: ", ")
        return "Not replacing \(summary) on \(SecretService.busName): its collection(s) \(names) are unlocked. "
            + "Replacing an unlocked provider locks the session's secrets (as `gnome-keyring-daemon -r` does): the "
            + "applications of this session lose what they read from it until it is unlocked again. Import its "
            + "secrets first (`latchkey import --from gnome-keyring` for gnome-keyring), then lock it "
            + "(`\(lockCommand)`) and run `latchkey agent --secret-service --replace` again, "
            + "or replace it anyway with `latchkey agent --secret-service --replace-unlocked`. See "
            + "\(Self.takeoverDocs)."
    }

    /// The command that locks the owner's unlocked collections through the Secret Service's `Lock` (`busctl`,
    /// which every systemd system has; Debian 12's `secret-tool lock` crashes).
    public var lockCommand: String {
        let paths = (collections ?? []).filter { !$0.locked && $0.name != "session" }.map(\.path)
        return
            "busctl --user call \(SecretService.busName) \(ObjectPath.servicePath) \(SecretService.serviceInterface) "
            + "Lock ao \(paths.count) \(paths.joined(separator: " "))"
    }

    /// Why `latchkey agent --replace` refuses when the owner's lock state cannot be read.
    var unknownLockRefusal: String {
        "Not replacing \(summary) on \(SecretService.busName): it did not say whether its collections are "
            + "unlocked (\(collectionsError ?? "no answer")). Replace it anyway with "
            + "`latchkey agent --secret-service --replace-unlocked`, or stop it first: \(stopCommand). See "
            + "\(Self.takeoverDocs)."
    }

    /// Why the name could not be claimed, and the next step.
    ///
    /// - Parameter replacing: Whether the request asked to replace the owner (which then did not allow it).
    func takenMessage(replacing: Bool) -> String {
        if replacing {
            return "\(summary) owns \(SecretService.busName) and does not allow replacement (it requests the name "
                + "without ALLOW_REPLACEMENT, as gnome-keyring does). Stop its Secret Service first: \(stopCommand); "
                + "then run `latchkey agent --secret-service` again. See \(Self.takeoverDocs)."
        }
        return "\(SecretService.busName) is already owned on this session bus by \(summary). To take it over, run "
            + "`latchkey agent --secret-service --replace` (it refuses while that provider has unlocked collections; "
            + "a provider that does not allow replacement, such as gnome-keyring, must be stopped first: "
            + "\(stopCommand)). See \(Self.takeoverDocs)."
    }
}
