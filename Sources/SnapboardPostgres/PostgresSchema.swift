/// The cluster's tables, versioned: `schema_version` holds one row per migration applied, and a database
/// with a version this build does not know is refused, untouched (as the SQLite store refuses a newer file).
///
/// Canvas ids are `text COLLATE "C"`: byte order, the order the other stores list canvases in, whatever
/// the database's locale.
enum PostgresSchema {
    /// The migrations, in order; their index + 1 is the version they bring the schema to.
    static let migrations: [(name: String, statements: [String])] = [
        ("v1-cluster", [
            // Fences come from one sequence, so a canvas's fence only goes up even when its row is removed
            // (a canvas never stored is forgotten on release) and claimed again.
            "CREATE SEQUENCE fence_seq",
            // A node's lease: it may be taken over once `expires` (the database's clock) has passed.
            """
            CREATE TABLE node (id text COLLATE "C" PRIMARY KEY, address text NOT NULL, expires timestamptz NOT NULL)
            """,
            // Ownership: the owner (NULL: none) and the fence it took. Every write locks this row and checks both.
            """
            CREATE TABLE canvas (id text COLLATE "C" PRIMARY KEY, owner text COLLATE "C",
                                 fence bigint NOT NULL CHECK (fence >= 0))
            """,
            "CREATE INDEX canvas_owner ON canvas (owner) WHERE owner IS NOT NULL",
            """
            CREATE TABLE snapshot (canvas text COLLATE "C" NOT NULL, seq bigint NOT NULL, state bytea NOT NULL,
                                   at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (canvas, seq))
            """,
            // The op log, with the columns of SQLite's plus the fence each commit was written under.
            // (canvas, seq) is the backstop: two writers can never both log a seq.
            """
            CREATE TABLE oplog (canvas text COLLATE "C" NOT NULL, seq bigint NOT NULL, client text, op_id text,
                                op bytea NOT NULL, undoes bigint, redoes bigint, name text, fence bigint NOT NULL,
                                at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (canvas, seq))
            """,
            // The runs of each canvas's history, in the order they began (`ord`), for resume (P16).
            """
            CREATE TABLE epoch (canvas text COLLATE "C" NOT NULL, id text NOT NULL, start bigint NOT NULL,
                                ord bigserial NOT NULL, PRIMARY KEY (canvas, id))
            """,
            "CREATE INDEX epoch_order ON epoch (canvas, ord)",
        ]),
        ("v2-answered", [
            // The ops that changed nothing and were answered so: exactly-once for them too (P15).
            """
            CREATE TABLE answered (canvas text COLLATE "C" NOT NULL, client text NOT NULL, op_id text NOT NULL,
                                   seq bigint NOT NULL, PRIMARY KEY (canvas, client, op_id))
            """,
        ]),
    ]

    static var version: Int { migrations.count }

    /// Brings the database to this build's schema, in one transaction; nodes starting together take turns
    /// (a transaction-scoped advisory lock: it only orders the migrations, it fences nothing).
    static func migrate(_ connection: PostgresConnection) throws {
        try connection.query("BEGIN")
        do {
            try connection.query("SELECT pg_advisory_xact_lock(7262002900)")
            try connection.query("""
                CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, name text NOT NULL,
                                                           applied timestamptz NOT NULL DEFAULT now())
                """)
            let rows = try connection.query("SELECT max(version) AS version FROM schema_version")
            let current = try rows.int(0, "version") ?? 0
            guard current <= version else {
                throw PostgresOpenError(description: "the database has schema version \(current), newer than this snapboard-server's \(version); refusing to touch it")
            }
            guard current >= 0 else { throw PostgresOpenError(description: "the database has schema version \(current), which no build wrote") }
            for (index, migration) in migrations.enumerated() where index + 1 > current {
                for statement in migration.statements { try connection.query(statement) }
                try connection.query("INSERT INTO schema_version (version, name) VALUES ($1, $2)",
                                     [.int(Int64(index + 1)), .text(migration.name)])
            }
            try connection.commit()
        } catch {
            connection.rollback()
            throw error
        }
    }
}

/// Why a database cannot be used: a newer schema, or a node id or option out of range. Opening never
/// changes a database it refuses.
public struct PostgresOpenError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
}
