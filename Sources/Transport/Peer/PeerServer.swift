import Synchronization

/// Serves inbound peers: takes connected `ByteStream`s from any source (the TCP listener,
/// or in-memory pairs in tests), runs each handshake and connection in its own task, and
/// keeps the connection budgets of `PeerLimits` (see `ConnectionBudget`): handshakes in
/// progress and authenticated peers are budgeted apart, and per IP, per network group and
/// per pubky, so one host cannot lock honest peers out.
///
/// Whatever one connection does (garbage, a stalled handshake, a broken limit) ends that
/// connection only; its reason is logged and counted, and every other peer keeps being
/// served.
public actor PeerServer {
    public nonisolated let identity: NodeIdentity
    public nonisolated let limits: PeerLimits

    private struct Slot {
        let stream: any ByteStream
        let host: PeerHost?
        let acceptedAt: ContinuousClock.Instant
        var connection: PeerConnection?
        var latency: Duration?
        var task: Task<Void, Never>?
        /// Closed to make room: no longer counted, and its end is not a handshake failure.
        var evicted = false
    }

    private let sleeper: any Sleeper
    private let log: PeerLog
    private let handlers: PeerHandlers
    private let budget: ConnectionBudget
    private let isProtected: @Sendable (Pubky) -> Bool
    private let started = ContinuousClock.now
    private var slots: [UInt64: Slot] = [:]
    private var nextSlot: UInt64 = 0
    private var isShutDown = false
    /// Connections handed over and not yet accepted, and whether a task is accepting them.
    private nonisolated let arrivals = Mutex<(waiting: [Arrival], draining: Bool)>(([], false))
    private typealias Arrival = (stream: any ByteStream, host: PeerHost?)
    /// Refusals, evictions and failures so far.
    public private(set) var counters = PeerServerCounters()

    /// `isProtected` is the node's hook for peers it never evicts for a newcomer (saved
    /// contacts, peers with a live swap); it is asked whenever a full budget picks one.
    public init(identity: NodeIdentity, sleeper: any Sleeper, limits: PeerLimits = PeerLimits(),
                log: PeerLog = .silent, handlers: PeerHandlers,
                isProtected: @escaping @Sendable (Pubky) -> Bool = { _ in false }) {
        self.identity = identity
        self.sleeper = sleeper
        self.limits = limits
        self.log = log
        self.handlers = handlers
        self.isProtected = isProtected
        budget = ConnectionBudget(limits: limits)
    }

    /// Takes one inbound connection from `host` (nil when the stream has no IP) and returns
    /// at once; the handshake and the connection run in their own task. Over a budget, or
    /// after `shutdown`, the stream is closed straight away and the refusal logged; a full
    /// handshake budget evicts a stalled handshake instead.
    ///
    /// A dialler refused here gets `ChannelHandshake.busyMessage` before the close, which
    /// its handshake reports as `ChannelError.listenerBusy` ("full, try later"). One
    /// refused after its handshake (its pubky over its share, or every peer protected) sees
    /// only the close.
    public func accept(_ stream: any ByteStream, from host: PeerHost? = nil) {
        guard !isShutDown else {
            Task { await stream.close() }
            return
        }
        switch budget.admitHandshake(from: host, among: descriptors()) {
        case .admit:
            break
        case .admitEvicting(let victim, let kind):
            evict(victim, budget: kind)
        case .refuse(let refusal):
            counters.refused[refusal.budget, default: 0] += 1
            log(.inboundRefused(host: host, peer: nil, refusal: refusal))
            Task {
                // Two bytes of header and 16 of text: cheap enough to send every refused
                // socket, and a failed write changes nothing.
                try? await stream.write(Frame.encode(ChannelHandshake.busyMessage))
                await stream.close()
            }
            return
        }
        counters.accepted += 1
        let id = nextSlot
        nextSlot += 1
        slots[id] = Slot(stream: stream, host: host, acceptedAt: .now)
        // The task reaches the actor only after this method returns, so the slot is
        // complete before the task can remove it.
        slots[id]?.task = Task { await self.serve(stream, slot: id) }
    }

    /// Takes one inbound connection as `accept` does, without waiting for the server: the
    /// caller (the TCP listener's accept loop, on its event loop) goes straight back to
    /// accepting instead of hopping to this actor and back, one thread wake-up less per
    /// connection. Connections reach `accept` in the order they were handed over.
    public nonisolated func handOver(_ stream: any ByteStream, from host: PeerHost? = nil) {
        let startDrain = arrivals.withLock { state in
            state.waiting.append((stream, host))
            if state.draining { return false }
            state.draining = true
            return true
        }
        if startDrain { Task { await self.acceptArrivals() } }
    }

    /// Accepts what `handOver` queued until the queue is empty, in order.
    private func acceptArrivals() {
        while true {
            let batch = takeArrivals()
            if batch.isEmpty { return }
            for arrival in batch { accept(arrival.stream, from: arrival.host) }
        }
    }

    /// The connections handed over so far, in order. Finding none ends the draining, so
    /// the next hand-over starts it again.
    private nonisolated func takeArrivals() -> [Arrival] {
        arrivals.withLock { state in
            var batch: [Arrival] = []
            swap(&batch, &state.waiting)
            if batch.isEmpty { state.draining = false }
            return batch
        }
    }

    /// Inbound connections now open or in their handshake.
    public var connectionCount: Int { slots.values.filter { !$0.evicted }.count }

    /// Inbound connections still in their handshake.
    public var handshakeCount: Int { slots.values.filter { !$0.evicted && $0.connection == nil }.count }

    /// The open connections from `pubky` (a peer may hold more than one).
    public func connections(from pubky: Pubky) -> [PeerConnection] {
        slots.values.compactMap(\.connection).filter { $0.remotePubky == pubky }
    }

    /// Stops accepting, closes every connection and waits for their tasks to end.
    public func shutdown() async {
        isShutDown = true
        // Handed over and not yet accepted: closed here, so none outlives the shutdown.
        for arrival in takeArrivals() { await arrival.stream.close() }
        let current = slots.values
        for slot in current {
            if let connection = slot.connection {
                await connection.close()
            } else {
                await slot.stream.close()
            }
        }
        for slot in current { await slot.task?.value }
    }

    private func serve(_ stream: any ByteStream, slot: UInt64) async {
        defer { slots[slot] = nil }
        let channel: SecureChannel
        do {
            channel = try await SecureChannel.accept(over: stream, identity: identity, sleeper: sleeper,
                                                     limits: limits.channel)
        } catch {
            if slots[slot]?.evicted != true {
                counters.handshakesFailed += 1
                log(.handshakeFailed(direction: .inbound, error: error))
            }
            return
        }
        guard !isShutDown, var current = slots[slot], !current.evicted else {
            await channel.close()
            return
        }
        let pubky = channel.remotePubky
        current.latency = ContinuousClock.now - current.acceptedAt
        var newcomer = descriptor(id: slot, current)
        newcomer.pubky = pubky
        newcomer.isProtected = isProtected(pubky)
        switch budget.admitPeer(newcomer, among: descriptors().filter { $0.id != slot }) {
        case .admit:
            break
        case .admitEvicting(let victim, let kind):
            evict(victim, budget: kind)
        case .refuse(let refusal):
            refuse(channel: channel, host: current.host, peer: pubky, refusal: refusal)
            return
        }
        let connection = PeerConnection(channel: channel, direction: .inbound, sleeper: sleeper, limits: limits,
                                        log: log, handlers: handlers)
        current.connection = connection
        slots[slot] = current
        await connection.start()
        let reason = await connection.waitUntilClosed()
        if case .failed = reason, slots[slot]?.evicted != true { counters.protocolErrors += 1 }
    }

    // MARK: Budgets

    /// The open connections as the budget sees them (evicted ones no longer count).
    private func descriptors() -> [ConnectionDescriptor] {
        slots.compactMap { id, slot in slot.evicted ? nil : descriptor(id: id, slot) }
    }

    private func descriptor(id: UInt64, _ slot: Slot) -> ConnectionDescriptor {
        let now = ContinuousClock.now
        let pubky = slot.connection?.remotePubky
        // A handshake in progress has been idle, as far as peers go, since it was accepted.
        return ConnectionDescriptor(
            id: id, host: slot.host, pubky: pubky,
            acceptedAt: Self.milliseconds(slot.acceptedAt - started),
            latencyMilliseconds: slot.latency.map(Self.milliseconds),
            idleMilliseconds: Self.milliseconds(now - (slot.connection?.lastReceived ?? slot.acceptedAt)),
            isProtected: pubky.map(isProtected) ?? false)
    }

    private func evict(_ id: UInt64, budget kind: ConnectionBudgetKind) {
        guard let slot = slots[id], !slot.evicted else { return }
        slots[id]?.evicted = true
        counters.evicted[kind, default: 0] += 1
        log(.evicted(host: slot.host, peer: slot.connection?.remotePubky, budget: kind))
        Task {
            if let connection = slot.connection {
                await connection.close()
            } else {
                await slot.stream.close()
            }
        }
    }

    private func refuse(channel: SecureChannel, host: PeerHost?, peer: Pubky, refusal: ConnectionRefusal) {
        counters.refused[refusal.budget, default: 0] += 1
        log(.inboundRefused(host: host, peer: peer, refusal: refusal))
        Task { await channel.close() }
    }

    private static func milliseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1000 + UInt64(max(0, attoseconds) / 1_000_000_000_000_000)
    }
}
