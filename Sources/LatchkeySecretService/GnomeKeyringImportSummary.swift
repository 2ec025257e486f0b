import Foundation

extension GnomeKeyringImport {
    /// What an import did, keyring by keyring.
    public struct Summary: Sendable, Equatable {
        /// One keyring file's outcome.
        public struct Keyring: Sendable, Equatable {
            /// The file.
            public var path: String
            /// The Secret Service collection its items went to (`login` for the login keyring); `nil` when it
            /// was skipped.
            public var collection: String?
            /// The keyring's label.
            public var label: String
            /// Whether the file is in the encrypted format.
            public var encrypted: Bool
            /// How many items the file holds (0 when skipped).
            public var items: Int
            /// How many were added.
            public var imported: Int
            /// How many were already there (same collection, attributes, label and secret) and left alone.
            public var duplicates: Int
            /// Whether it was skipped because the password did not open it (`skipLocked`).
            public var skipped: Bool
        }

        /// Every keyring file, in the order given.
        public var keyrings: [Keyring]
        /// The collection the `default` alias was pointed at because gnome-keyring's `default` file names that
        /// keyring, or `nil` when it was left as it was (no `default` file, its keyring not imported, or the
        /// alias already set in Latchkey).
        public var defaultAlias: String?

        /// How many items were added in all.
        public var imported: Int { keyrings.reduce(0) { $0 + $1.imported } }
        /// How many were duplicates in all.
        public var duplicates: Int { keyrings.reduce(0) { $0 + $1.duplicates } }
        /// The keyrings skipped because the password did not open them.
        public var skipped: [Keyring] { keyrings.filter(\.skipped) }
    }

    /// What the marker record keeps (`markerHint`): when the last import ran and which collection each
    /// keyring went to, so that a second import puts its items in the same place.
    struct Marker: Codable, Equatable {
        /// The format's version (1).
        var version = 1
        /// When the last import ran.
        var importedAt: Date
        /// The collection of each keyring imported so far, by keyring name.
        var collections: [String: String]
    }
}
