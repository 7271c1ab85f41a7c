/// Where the owner of a libuv handle is in closing it: open, closing (uv_close called,
/// its callback pending) or closed (the callback ran and freed the handle), and the tasks
/// waiting in `close()` for that callback. Shared by `UVStreamCore` and `UVListenerCore`.
struct HandleLifecycle {
    private enum State {
        case open
        case closing
        case closed
    }

    private var state = State.open
    private var waiters: [CheckedContinuation<Void, Never>] = []

    var isOpen: Bool {
        if case .open = state { return true }
        return false
    }

    var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Marks the handle closing. False when it was not open: the caller must not close
    /// it again.
    mutating func beginClosing() -> Bool {
        guard isOpen else { return false }
        state = .closing
        return true
    }

    /// A task in `close()` that resumes once the close callback ran.
    mutating func waitForClose(_ waiter: CheckedContinuation<Void, Never>) {
        waiters.append(waiter)
    }

    /// The close callback ran: resumes every task waiting in `close()`.
    mutating func didClose() {
        state = .closed
        let resumed = waiters
        waiters = []
        for waiter in resumed { waiter.resume() }
    }
}
