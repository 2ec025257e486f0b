import GRDB

/// The keychain file's schema, as GRDB migrations. A shipped migration is never edited: changes come
/// as new migrations appended here, and `formatVersion` goes up when older builds can no longer read.
enum StorageSchema {
    /// The on-disk format version written to `meta.format` (see docs/storage-format.md): 2 since the row
    /// ledger (format 1 files are read, and upgraded at their first writable unlock). The `tags` table
    /// (migration v3) left it at 2: builds without it open such a file and cannot corrupt it.
    static let formatVersion = 2

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL) WITHOUT ROWID;
                    CREATE TABLE slots (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL,
                        parameters BLOB NOT NULL,
                        wrapped BLOB NOT NULL,
                        checksum BLOB NOT NULL);
                    CREATE TABLE classkeys (
                        class TEXT PRIMARY KEY NOT NULL, bymaster BLOB, bydevice BLOB) WITHOUT ROWID;
                    CREATE TABLE changes (id INTEGER PRIMARY KEY CHECK (id = 1), counter INTEGER NOT NULL);
                    INSERT INTO changes (id, counter) VALUES (1, 0);
                    """
            )
            for table in ItemTable.allCases {
                let fixed = ItemTable.fixedTokenColumns.map { "\($0) BLOB NOT NULL" }
                let search = table.searchColumns.map { "\($0) BLOB" }
                let columns =
                    [
                        "id INTEGER PRIMARY KEY AUTOINCREMENT",
                        "persistref BLOB NOT NULL UNIQUE",
                        "pk BLOB NOT NULL UNIQUE",
                    ] + fixed + search + ["itemkey BLOB NOT NULL", "attrs BLOB NOT NULL", "secret BLOB"]
                try db.execute(sql: "CREATE TABLE \(table.rawValue) (\(columns.joined(separator: ", ")))")
                for column in table.indexedColumns {
                    try db.execute(sql: "CREATE INDEX \(table.rawValue)_\(column) ON \(table.rawValue)(\(column))")
                }
            }
        }
        migrator.registerMigration("v2") { db in
            // The row ledger's seal lives beside the change counter: every item write updates both, so
            // they share one page of the commit instead of dirtying the `meta` page as well.
            try db.execute(sql: "ALTER TABLE changes ADD COLUMN ledger BLOB")
        }
        migrator.registerMigration("v3") { db in
            // Search tags: one row per (item, tag token). The primary key serves the item's own rows (replaced
            // on update, removed on delete); `tags_token` serves searches, which start from a token's rows.
            // Older builds open the file unchanged (they know v1 and v2, which are complete); see
            // docs/storage-format.md §11 for what they do to tags.
            try db.execute(
                sql: """
                    CREATE TABLE tags (
                        tbl TEXT NOT NULL, item INTEGER NOT NULL, token BLOB NOT NULL,
                        PRIMARY KEY (tbl, item, token)) WITHOUT ROWID;
                    CREATE INDEX tags_token ON tags(token, tbl, item);
                    """
            )
        }
        migrator.registerMigration("v4") { db in
            // Composite primary-key indexes (`ItemTable.compositeIndexes`): a search by account and service
            // descends one index to the item even when many items share the account. Each replaces the
            // index on its leading column, which it serves as well. Older builds open the file unchanged:
            // their searches name no index, and SQLite serves them from the composite indexes' prefixes.
            for table in ItemTable.allCases {
                guard let (leading, trailing) = table.compositeIndex else { continue }
                let name = table.rawValue
                try db.execute(
                    sql: """
                        CREATE INDEX \(name)_\(leading)_\(trailing) ON \(name)(\(leading), \(trailing));
                        DROP INDEX \(name)_\(leading);
                        """
                )
            }
        }
        migrator.registerMigration("v5") { db in
            // Sync (docs/sync.md §9): the outbox of synchronizable items changed here and not yet sent, written
            // in the item's own transaction; the version of each synced row this machine holds, with the
            // sealed row it is sending; and the bounded history of conflicts it lost or won. Nothing here is
            // secret: references, versions, clock readings and rows sealed under the sync key. Older builds
            // open the file unchanged; their writes skip the outbox (`latchkey sync now` after an older build
            // wrote finds them when it sends everything again, docs/sync.md).
            try db.execute(
                sql: """
                    CREATE TABLE sync_outbox (
                        tbl TEXT NOT NULL, persistref BLOB NOT NULL, ms INTEGER NOT NULL, counter INTEGER NOT NULL,
                        PRIMARY KEY (tbl, persistref)) WITHOUT ROWID;
                    CREATE TABLE sync_rows (
                        row_id BLOB PRIMARY KEY NOT NULL, version INTEGER NOT NULL, pending BLOB) WITHOUT ROWID;
                    CREATE TABLE sync_history (
                        id INTEGER PRIMARY KEY AUTOINCREMENT, row_id BLOB NOT NULL, recorded_ms INTEGER NOT NULL,
                        entry BLOB NOT NULL);
                    """
            )
        }
        return migrator
    }

    /// Whether the file open as `db` has the composite indexes of migration v4 (a file of an older format
    /// opened read-only has not).
    static func hasCompositeIndexes(_ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: "SELECT count(*) = 1 FROM sqlite_master WHERE type = 'index' AND name = 'genp_acct_svce'"
        ) ?? false
    }
}
