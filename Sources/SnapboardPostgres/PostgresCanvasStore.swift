import CLibPQ
import SnapboardStore

/// Canvases in PostgreSQL, shared by the nodes of a cluster (being written).
enum PostgresPlaceholder {}
