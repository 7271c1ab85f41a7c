import CLibUV
import Glibc
import Synchronization

/// One libuv loop driven by one dedicated thread. Work reaches the loop from any thread
/// through `execute` (a mutex-protected queue plus a `uv_async_t` wake-up), and the loop
/// is a `SerialExecutor`, so actors can pin themselves to it and run on its thread.
///
/// Every `uv_*` call that touches the loop or a handle happens on the loop thread. Call
/// `shutdown()` when done: it closes every handle, lets the close callbacks run, closes
/// the loop and joins the thread. An unused loop that is never shut down keeps its
/// thread (the thread holds a reference to the loop until it ends).
///
///     let loop = try EventLoop()
///     let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop)
///     let client = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, loop: loop)
///     try await loop.sleep(milliseconds: 10)          // or pass `loop.sleeper` as a Sleeper
///     ...
///     await loop.shutdown()
///
/// Creating the loop ignores SIGPIPE for the process: libuv then reports a write to a
/// vanished peer as EPIPE instead of the signal killing the process.
///
/// `@unchecked Sendable`: the only state shared across threads is `shared` (a Mutex),
/// `loopThread` (an Atomic) and the `wakeup` handle, used from other threads only through
/// `uv_async_send` (which libuv documents as thread-safe) and only while holding the
/// mutex with `accepting` true, i.e. before the handle is closed. Everything else
/// (`uvLoop`, `resources`, `closingDown`, `readBuffer`) is touched only on the loop thread.
/// `thread` is written by `init` before the loop is shared and read by `shutdown` only.
public final class EventLoop: @unchecked Sendable {
    enum Work {
        case closure(@Sendable () -> Void)
        case job(UnownedJob)
    }

    private struct Shared {
        var queue: [Work] = []
        /// False once the wake-up handle is closing: nothing queued after that would run.
        var accepting = true
        var shutdownRequested = false
        var stopped = false
        /// A thread is running jobs that arrived after the loop stopped.
        var drainingLateJobs = false
        var joined = false
        var loopCloseResult: Int32?
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        /// Work queued so far, jobs and closures: every crossing to the loop thread (what
        /// the tests hold down).
        var submitted = 0
    }

    private let shared = Mutex(Shared())
    private let loopThread = Atomic<UInt>(0)
    let uvLoop: UnsafeMutablePointer<uv_loop_t>
    private let wakeup: UnsafeMutablePointer<uv_async_t>
    private var thread = pthread_t()

    /// Where every read on this loop lands before it is copied out. libuv on Unix calls
    /// the alloc callback and then the read callback for the same chunk back to back on
    /// the loop thread, so one buffer per loop serves every connection.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// The most one read takes. Larger than a channel frame (65,537 bytes), so a frame that
    /// has arrived is read by one `read(2)`, and a reader that fell behind gets several at
    /// once (docs/PERFORMANCE.md, "Reads of a whole frame" in the sixth session's section).
    static let readBufferSize = 256 * 1024

    /// The loop's alarms (`alarm(milliseconds:_:)`): one loop timer for all of them. Set
    /// by `init` before the loop is shared, never changed.
    private(set) var alarms: LoopAlarms!

    // Loop-thread-only state.
    private var resources: [ObjectIdentifier: any LoopResource] = [:]
    private var closingDown = false
    private var wakeupClosed = false

    /// Starts the loop and its thread.
    public init() throws(LibUVError) {
        uvLoop = UVHandle.allocate(uv_loop_t.self)
        wakeup = UVHandle.allocate(uv_async_t.self)
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        do {
            try uvCheck(uv_loop_init(uvLoop), "uv_loop_init")
        } catch {
            UVHandle.free(uvLoop)
            UVHandle.free(wakeup)
            readBuffer.deallocate()
            throw error
        }
        uvLoop.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        alarms = LoopAlarms(loop: self)
        // Cannot fail on Linux for a freshly initialised loop; checked all the same.
        uvMust(uv_async_init(uvLoop, wakeup) { handle in
            UVHandle.eventLoop(of: UVHandle.base(handle!)).drainQueue()
        }, "uv_async_init")
        // A write to a socket whose peer has gone raises SIGPIPE, which would kill the
        // process; libuv reports EPIPE from the write instead once it is ignored.
        signal(SIGPIPE, SIG_IGN)

        // The thread owns one reference to the loop until it returns.
        do {
            thread = try SystemThread.start { [self] in runOnLoopThread() }
        } catch {
            // The loop never ran: close it here, on the only thread that knows it.
            UVHandle.closeAndFree(wakeup)
            uv_run(uvLoop, UV_RUN_DEFAULT)
            uv_loop_close(uvLoop)
            UVHandle.free(uvLoop)
            readBuffer.deallocate()
            // pthread returns a positive errno; libuv's codes are the negated errno on Unix.
            try uvCheck(-error.code, "pthread_create")
        }
    }

    /// True on the loop's own thread.
    public var inEventLoop: Bool {
        loopThread.load(ordering: .acquiring) == UInt(pthread_self())
    }

    /// Runs `work` on the loop thread, after work submitted before it. Callable from any
    /// thread, including the loop's (then it runs on a later turn, never re-entrantly).
    /// Once shutdown has closed the loop's wake-up handle, work is dropped: it may call
    /// libuv, and the loop is gone.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        submit(.closure(work))
    }

    /// Queues work; false if it was dropped because the loop is shut down.
    ///
    /// Closures need libuv, so once the wake-up handle is closing they are refused. Jobs
    /// (actor code pinned to this loop) are still run after shutdown: a task resumed by
    /// shutdown itself (a read ending with nil) reaches this executor through the global
    /// pool, possibly after the loop has closed. Such late jobs run in order, one at a
    /// time, on the loop thread before it exits or else on a short-lived drain thread.
    @discardableResult
    func submit(_ work: Work) -> Bool {
        let spawnDrainer = shared.withLock { state -> Bool? in
            if state.accepting {
                state.submitted += 1
                state.queue.append(work)
                // One wake-up per batch: the loop takes the whole queue at once. The send
                // stays under the lock so the loop cannot close the handle in between.
                if state.queue.count == 1 { uvMust(uv_async_send(wakeup), "uv_async_send") }
                return false
            }
            guard case .job = work else { return nil }
            state.queue.append(work)
            guard state.stopped, !state.drainingLateJobs else { return false }
            state.drainingLateJobs = true
            return true
        }
        guard let spawnDrainer else { return false }
        if spawnDrainer { startLateJobDrainer() }
        return true
    }

    /// Submits work that resumes `continuation` itself; if the loop no longer accepts
    /// work, the continuation fails with `EventLoopError.shutDown` instead.
    func submit<T>(
        failing continuation: CheckedContinuation<T, any Error>,
        _ work: @escaping @Sendable () -> Void
    ) {
        if !submit(.closure(work)) { continuation.resume(throwing: EventLoopError.shutDown) }
    }

    /// How much work (jobs and closures) has been queued to the loop from the start: each
    /// is a crossing to the loop thread, and a wake-up unless it joined a batch.
    var submittedWork: Int {
        shared.withLock { $0.submitted }
    }

    /// The result of `uv_loop_close` once the loop has stopped (0: no handle leaked).
    public var loopCloseResult: Int32? {
        shared.withLock { $0.loopCloseResult }
    }

    /// Closes every handle, waits for their close callbacks, closes the loop and joins its
    /// thread. Waiters on the loop's handles are resumed (reads with nil, sleeps and
    /// accepts with `EventLoopError.shutDown`). Must be called from outside the loop.
    public func shutdown() async {
        precondition(!inEventLoop, "EventLoop.shutdown() waits for the loop thread; call it from outside the loop")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (start, alreadyStopped) = shared.withLock { state -> (Bool, Bool) in
                if state.stopped { return (false, true) }
                state.shutdownWaiters.append(continuation)
                if state.shutdownRequested { return (false, false) }
                state.shutdownRequested = true
                return (true, false)
            }
            if alreadyStopped { continuation.resume() }
            if start { submit(.closure { self.beginShutdown() }) }
        }
        let join = shared.withLock { state -> Bool in
            defer { state.joined = true }
            return !state.joined
        }
        // The thread has resumed us as its last act, so this join waits only for it to
        // return from its entry function.
        if join { pthread_join(thread, nil) }
    }

    // MARK: Loop thread

    private func runOnLoopThread() {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        // Returns once no handle is left: the wake-up handle is closed last, in shutdown.
        uv_run(uvLoop, UV_RUN_DEFAULT)
        let rc = uv_loop_close(uvLoop)
        if rc == 0 {
            UVHandle.free(uvLoop)
            readBuffer.deallocate()
        }
        // On failure the loop still references handles; leaking it beats freeing memory
        // libuv may still point into. Tests assert the result is 0.
        let waiters = shared.withLock { state in
            state.stopped = true
            state.loopCloseResult = rc
            state.drainingLateJobs = true
            defer { state.shutdownWaiters = [] }
            return state.shutdownWaiters
        }
        drainLateJobs()
        for waiter in waiters { waiter.resume() }
    }

    /// Runs jobs queued after the wake-up handle closed, until none is left. Only one
    /// thread drains at a time (`drainingLateJobs`), so actor jobs stay serial.
    private func drainLateJobs() {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        while true {
            var batch: [Work] = []
            let more = shared.withLock { state -> Bool in
                swap(&batch, &state.queue)
                if batch.isEmpty {
                    // Forget this thread before another drainer may start: a later thread
                    // could reuse its id and would wrongly count as the loop's.
                    loopThread.store(0, ordering: .releasing)
                    state.drainingLateJobs = false
                }
                return !batch.isEmpty
            }
            guard more else { return }
            for work in batch {
                if case .job(let job) = work { job.runSynchronously(on: asUnownedSerialExecutor()) }
            }
        }
    }

    private func startLateJobDrainer() {
        do {
            pthread_detach(try SystemThread.start { [self] in drainLateJobs() })
        } catch {
            // Without a thread the jobs could never run; that is not recoverable.
            uvMust(-error.code, "pthread_create")
        }
    }

    private func drainQueue() {
        // One batch per wake-up: work queued while this batch runs gets its own wake-up,
        // so a job that keeps rescheduling itself cannot starve I/O.
        var batch: [Work] = []
        shared.withLock { state in swap(&batch, &state.queue) }
        for work in batch {
            switch work {
            case .closure(let body): body()
            case .job(let job): job.runSynchronously(on: asUnownedSerialExecutor())
            }
        }
        if closingDown { closeWakeupIfQuiescent() }
    }

    /// Registers a resource so shutdown can close it. Loop thread only.
    func register(_ resource: any LoopResource) throws(EventLoopError) {
        assertInEventLoop()
        if closingDown { throw .shutDown }
        resources[ObjectIdentifier(resource)] = resource
    }

    /// Forgets a resource whose handles are closed. Loop thread only.
    func unregister(_ resource: any LoopResource) {
        assertInEventLoop()
        resources.removeValue(forKey: ObjectIdentifier(resource))
        if closingDown { closeWakeupIfQuiescent() }
    }

    /// True once shutdown has begun; loop thread only.
    var isClosingDown: Bool {
        assertInEventLoop()
        return closingDown
    }

    func assertInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(inEventLoop, "libuv state touched off the loop thread", file: file, line: line)
    }

    private func beginShutdown() {
        closingDown = true
        // Closing may resume tasks pinned to this loop; their jobs are queued and run
        // before the wake-up handle closes (see closeWakeupIfQuiescent).
        for resource in Array(resources.values) { resource.closeForShutdown() }
        closeWakeupIfQuiescent()
    }

    /// Closes the wake-up handle once every resource has closed and no work is queued.
    /// After that nothing keeps uv_run going but closing handles, so it returns.
    private func closeWakeupIfQuiescent() {
        guard closingDown, !wakeupClosed, resources.isEmpty else { return }
        let idle = shared.withLock { state -> Bool in
            guard state.queue.isEmpty else { return false }
            state.accepting = false
            return true
        }
        guard idle else { return }
        wakeupClosed = true
        UVHandle.closeAndFree(wakeup)
    }
}
