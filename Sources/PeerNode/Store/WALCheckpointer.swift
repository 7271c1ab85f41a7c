#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSQLite
import Transport
import Synchronization

/// Copies the WAL back into the database file on a thread of its own, so that no commit
/// pays for it.
///
/// SQLite checkpoints by default in the commit that finds the log past 1,000 pages: that
/// commit writes the pages into the database file and syncs it before it returns, which
/// made one of a client daemon's steps in every twenty-odd swaps wait about 15 ms more
/// (a `fdatasync` of the main file) than its neighbours, before an act that waited for
/// it. Here the store's connection has no checkpoint of its own; its WAL hook tells this
/// object how long the log is after each commit, and past `thresholdFrames` a second
/// connection on the same file runs a PASSIVE checkpoint, which never waits for the writer
/// nor makes it wait. The checkpoint syncs the log before it copies and the database file
/// after (`checkpoint_fullfsync`), so a crash at any point leaves each commit in the log
/// or in the file, as with SQLite's own.
final class WALCheckpointer: Sendable {
    /// SQLite's own default for `wal_autocheckpoint`.
    static let defaultThresholdFrames: Int32 = 1_000

    let thresholdFrames: Int32
    private let path: String
    private let state = Mutex(State())
    /// `nonisolated(unsafe)` because a pointer is not `Sendable`: the semaphore it points to
    /// is made for posts and waits from any thread, and the pointer itself never changes.
    nonisolated(unsafe) private let wakeup: UnsafeMutablePointer<sem_t>
    /// Checkpoints run to the end, for tests.
    let completed = Atomic<Int>(0)

    private struct State {
        var requested = false
        var stopping = false
        var thread: pthread_t?
    }

    init(path: String, thresholdFrames: Int32 = WALCheckpointer.defaultThresholdFrames) {
        self.path = path
        self.thresholdFrames = thresholdFrames
        wakeup = .allocate(capacity: 1)
        sem_init(wakeup, 0, 0)
    }

    deinit {
        sem_destroy(wakeup)
        wakeup.deallocate()
    }

    /// Makes `connection`'s commits report to this object and starts its thread. SQLite
    /// keeps a single WAL hook per connection: installing this one turns the connection's
    /// automatic checkpoint off.
    func attach(to connection: OpaquePointer) throws(StoreError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = sqlite3_wal_hook(connection, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(framesInLog: frames)
            return SQLITE_OK
        }, context)
        let thread: pthread_t
        do {
            thread = try SystemThread.start { [self] in run() }
        } catch {
            _ = sqlite3_wal_hook(connection, nil, nil)
            throw .database(operation: "start the checkpoint thread", message: String(cString: strerror(error.code)))
        }
        state.withLock { $0.thread = thread }
    }

    /// Called by SQLite on the committing thread, inside the commit: only a flag and a post.
    private func committed(framesInLog frames: Int32) {
        guard frames >= thresholdFrames else { return }
        let post = state.withLock { state -> Bool in
            if state.requested || state.stopping { return false }
            state.requested = true
            return true
        }
        if post { sem_post(wakeup) }
    }

    /// Stops the thread, after the checkpoint it may be running. The store's own close then
    /// checkpoints what is left.
    func stop() {
        let thread = state.withLock { state -> pthread_t? in
            state.stopping = true
            defer { state.thread = nil }
            return state.thread
        }
        guard let thread else { return }
        sem_post(wakeup)
        pthread_join(thread, nil)
    }

    private func run() {
        var handle: OpaquePointer?
        defer { if let handle { _ = sqlite3_close_v2(handle) } }
        while true {
            while sem_wait(wakeup) != 0 {}
            let stopping = state.withLock { state -> Bool in
                state.requested = false
                return state.stopping
            }
            if stopping { return }
            if handle == nil { handle = Self.open(path) }
            guard let handle else { continue }
            var logFrames: Int32 = 0
            var copied: Int32 = 0
            // BUSY (another checkpoint, or the log being reset) is no failure: the next
            // commit past the threshold asks again.
            if sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copied) == SQLITE_OK {
                completed.add(1, ordering: .relaxed)
            }
        }
    }

    /// The checkpoint's own connection, with the store's sync settings.
    private static func open(_ path: String) -> OpaquePointer? {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nil) == SQLITE_OK,
              let handle else {
            _ = sqlite3_close_v2(handle)
            return nil
        }
        // It never writes (no automatic checkpoint to turn off), and a PASSIVE checkpoint
        // never calls a busy handler: only the syncs matter here.
        for pragma in ["PRAGMA synchronous = FULL", "PRAGMA fullfsync = ON", "PRAGMA checkpoint_fullfsync = ON"] {
            _ = sqlite3_exec(handle, pragma, nil, nil, nil)
        }
        return handle
    }
}
