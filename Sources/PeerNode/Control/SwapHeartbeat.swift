import Synchronization
import Transport

/// Where a waiting swap stands, said while nothing else is (issue 14: an attached `pay`
/// was silent while its lock waited for confirmations). Once the command's swap is known,
/// one `waiting` progress line goes out at every new block and at least once a minute:
/// the swap's state, since when, and the chain tip.
final class SwapHeartbeat: Sendable {
    static let quietSeconds: Int64 = 60
    private let swapID = Mutex<String?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Learns the swap id from the command's own progress lines.
    func see(_ line: JSONValue) {
        guard let id = line["swap_id"]?.stringValue else { return }
        swapID.withLock { $0 = $0 ?? id }
    }

    func start(services: NodeServices, progress: @escaping ControlProgress, pollMilliseconds: UInt64 = 1_000) {
        let started = ContinuousClock.now
        let body = Task { [self] in
            var lastTip: Int?
            var lastLine = Int64(services.clock.nowUnix)
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: pollMilliseconds * 1_000_000)
                guard !Task.isCancelled, let id = currentID else { continue }
                guard let last = try? await services.store.lastEvent(of: id), !last.isFinal else { continue }
                let tip = try? await services.chain.tip().height
                let now = Int64(services.clock.nowUnix)
                let newBlock = tip != nil && tip != lastTip
                guard newBlock || now - lastLine >= Self.quietSeconds else { continue }
                lastTip = tip ?? lastTip
                lastLine = now
                let elapsed = started.duration(to: .now).components
                await progress(Self.line(id: id, state: last, tip: tip, now: now,
                                         elapsedMilliseconds: elapsed.seconds * 1_000 + elapsed.attoseconds / 1_000_000_000_000_000))
            }
        }
        task.withLock { $0 = body }
    }

    private var currentID: String? { swapID.withLock { $0 } }

    func stop() {
        task.withLock { $0?.cancel() }
    }

    static func line(id: String, state: SwapEvent, tip: Int?, now: Int64, elapsedMilliseconds: Int64) -> JSONValue {
        let waited = max(0, now - state.at)
        var detail = "\(state.kind) for \(waited) s"
        if let tip { detail += "; chain tip \(tip)" }
        var line: [String: JSONValue] = ["stage": .string("waiting"), "detail": .string(detail), "swap_id": .string(id),
                                         "state": .string(state.kind), "state_at": .integer(state.at), "at": .integer(now),
                                         "elapsed_ms": .integer(elapsedMilliseconds)]
        if let tip { line["tip_height"] = .integer(Int64(tip)) }
        return .object(line)
    }
}
