import Synchronization

/// One input queue per swap, for the provider engines (reverse and submarine): a swap's
/// inputs (blocks, spends, payment updates, requests' outcomes) are handled one at a time,
/// in order, by the engine's `handle`; a caller whose answer depends on the outcome waits
/// for its own input (`deliverAndWait`). Behind a lock rather than on the engine actor, so
/// either engine uses the same queues.
final class SwapMailboxes<Input: Sendable>: Sendable {
    private struct Mail: Sendable {
        let input: Input
        /// Names a caller waiting for this input to be handled.
        let token: UInt64?
    }

    private struct Table {
        var queues: [String: AsyncStream<Mail>.Continuation] = [:]
        var drivers: [String: Task<Void, Never>] = [:]
        var waiters: [UInt64: (swapID: String, done: CheckedContinuation<Void, Never>)] = [:]
        var nextToken: UInt64 = 0
    }

    private let table = Mutex(Table())

    /// Whether swap `swapID` has a queue.
    func isOpen(_ swapID: String) -> Bool { table.withLock { $0.queues[swapID] != nil } }

    /// Starts handling `swapID`'s inputs with `handle`, one at a time; a no-op when open.
    func open(_ swapID: String, handle: @escaping @Sendable (Input) async -> Void) {
        let (inputs, continuation) = AsyncStream<Mail>.makeStream()
        let opened = table.withLock { table -> Bool in
            guard table.queues[swapID] == nil else { return false }
            table.queues[swapID] = continuation
            return true
        }
        guard opened else { return }
        let driver = Task { [weak self] in
            for await mail in inputs {
                if Task.isCancelled { return }
                await handle(mail.input)
                self?.handled(mail.token)
            }
        }
        table.withLock { $0.drivers[swapID] = driver }
    }

    /// Queues an input; dropped when the swap has no queue.
    func deliver(_ input: Input, to swapID: String) {
        _ = table.withLock { $0.queues[swapID] }?.yield(Mail(input: input, token: nil))
    }

    /// Queues an input and returns once the swap has handled it (its transition stored and
    /// its actions run), in order with every other input of the swap; at once when the swap
    /// has no queue, or it closes first.
    func deliverAndWait(_ input: Input, to swapID: String) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let queued = table.withLock { table -> (AsyncStream<Mail>.Continuation, UInt64)? in
                guard let queue = table.queues[swapID] else { return nil }
                table.nextToken += 1
                table.waiters[table.nextToken] = (swapID, done)
                return (queue, table.nextToken)
            }
            guard let (queue, token) = queued else { return done.resume() }
            if case .terminated = queue.yield(Mail(input: input, token: token)) { handled(token) }
        }
    }

    /// Ends `swapID`'s queue: inputs still queued are never handled, their callers go on.
    func close(_ swapID: String) {
        let (queue, waiting) = table.withLock { table in
            table.drivers[swapID] = nil
            let waiting = table.waiters.filter { $0.value.swapID == swapID }
            for token in waiting.keys { table.waiters[token] = nil }
            return (table.queues.removeValue(forKey: swapID), waiting.values.map(\.done))
        }
        queue?.finish()
        for done in waiting { done.resume() }
    }

    /// Ends every queue and cancels its driver (the engine stops, as a crash would).
    func closeAll() {
        let (queues, drivers, waiting) = table.withLock { table in
            defer { table = Table() }
            return (Array(table.queues.values), Array(table.drivers.values), table.waiters.values.map(\.done))
        }
        for driver in drivers { driver.cancel() }
        for queue in queues { queue.finish() }
        for done in waiting { done.resume() }
    }

    private func handled(_ token: UInt64?) {
        guard let token else { return }
        table.withLock { $0.waiters.removeValue(forKey: token) }?.done.resume()
    }
}
