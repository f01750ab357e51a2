import MouchardStore
import Synchronization

/// A connection shared by the sessions a command opens from one fleet store, used by one thread
/// at a time.
final class PGLink: Sendable {
    let display: String
    private let connection: Mutex<PGConnection>

    init(_ connection: sending PGConnection) {
        display = connection.display
        self.connection = Mutex(connection)
    }

    func locked<T: Sendable>(_ body: (PGConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try connection.withLock { (c: inout PGConnection) throws(StoreError) -> T in try body(c) }
    }
}
