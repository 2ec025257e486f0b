import Foundation
import Latchkey

/// One keyring of gnome-keyring, read whole from its file (`GnomeKeyringFile.open`): its items with their
/// secrets, ready to be imported.
///
/// gnome-keyring keeps each collection in `~/.local/share/keyrings/<name>.keyring`, in its encrypted binary
/// format (`GnomeKeyringBinary`) when the keyring has a password, or its plain textual one
/// (`GnomeKeyringTextual`) when the password is empty. `<name>` is the collection's object-path element
/// (`login` for the login keyring); the label is kept inside the file.
struct GnomeKeyring: Sendable {
    /// One item.
    struct Item: Sendable {
        /// Its identifier in the keyring (the last element of its object path in gnome-keyring).
        var id: UInt32
        /// The old gnome-keyring item type (0 generic secret, 1 network password, 2 note ...).
        var type: UInt32
        /// Its `Label`.
        var label: String
        /// Its attributes as gnome-keyring's Secret Service shows them once it has read the file: strings, and
        /// old uint32 attributes as their decimal digits; gnome-keyring's own bookkeeping (`gkr:compat:*`) left
        /// out; `xdg:schema` the client's, else the schema of the item type (`withSchema`).
        var attributes: [String: String]
        /// Its secret (empty when the file keeps none).
        var secret: SecretData
        /// `Created`.
        var created: Date
        /// `Modified`.
        var modified: Date

        /// `attributes` with `xdg:schema` when they have none and the old item type names a schema, as
        /// gnome-keyring shows an item read from its file (`setup_item_from_info` takes the schema from the type,
        /// `gkm_secret_fields_serialize` adds it to the attributes): `org.freedesktop.Secret.Generic` for a
        /// generic secret, which is what `secret-tool store` and python SecretStorage make.
        static func withSchema(_ attributes: [String: String], type: UInt32) -> [String: String] {
            guard attributes[SecretItem.schemaAttribute] == nil, let schema = schema(ofType: type) else {
                return attributes
            }
            var shown = attributes
            shown[SecretItem.schemaAttribute] = schema
            return shown
        }

        /// The schema gnome-keyring gives an old item type (`gkm_secret_compat_format_item_type`), or `nil`.
        static func schema(ofType type: UInt32) -> String? {
            switch type & 0xffff {
            case 0: SecretItem.genericSchema
            case 1: "org.gnome.keyring.NetworkPassword"
            case 2: "org.gnome.keyring.Note"
            case 3: "org.gnome.keyring.ChainedKeyring"
            case 4: "org.gnome.keyring.EncryptionKey"
            case 0x100: "org.gnome.keyring.PkStorage"
            default: nil
            }
        }

        /// The item's `Type`: its schema, or "" when it has none.
        var schemaType: String { attributes[SecretItem.schemaAttribute] ?? "" }
    }

    /// The file's format.
    enum Format: String, Sendable {
        /// The binary format, encrypted with the keyring's password.
        case encrypted
        /// The textual format of a keyring whose password is empty.
        case plain
    }

    /// The keyring's label (its `display-name`).
    var label: String
    /// When the keyring was created.
    var created: Date
    /// When it was last changed.
    var modified: Date
    /// Its items, in the file's order.
    var items: [Item]
}

/// gnome-keyring's times: seconds since 1970, 0 when never set.
extension Date {
    /// The date `seconds` after 1970 (gnome-keyring keeps whole seconds).
    init(gnomeKeyringSeconds seconds: UInt64) {
        self.init(timeIntervalSince1970: TimeInterval(min(seconds, UInt64(Int64.max))))
    }
}
