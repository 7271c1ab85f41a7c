/// Serves inbound peers: takes connected `ByteStream`s from any source (the TCP listener,
/// or in-memory pairs in tests), runs each handshake and connection in its own task, and
/// keeps at most `PeerLimits.maxInboundConnections` at once.
///
/// Whatever one connection does (garbage, a stalled handshake, a broken limit) ends that
/// connection only; its reason is logged and every other peer keeps being served.
public actor PeerServer {
    public nonisolated let identity: NodeIdentity
    public nonisolated let limits: PeerLimits

    private struct Slot {
        let stream: any ByteStream
        var connection: PeerConnection?
        var task: Task<Void, Never>?
    }

    private let sleeper: any Sleeper
    private let log: PeerLog
    private let handlers: PeerHandlers
    private var slots: [UInt64: Slot] = [:]
    private var nextSlot: UInt64 = 0
    private var isShutDown = false

    public init(identity: NodeIdentity, sleeper: any Sleeper, limits: PeerLimits = PeerLimits(),
                log: PeerLog = .silent, handlers: PeerHandlers) {
        self.identity = identity
        self.sleeper = sleeper
        self.limits = limits
        self.log = log
        self.handlers = handlers
    }

    /// Takes one inbound connection and returns at once; the handshake and the connection
    /// run in their own task. Over the inbound limit, or after `shutdown`, the stream is
    /// closed straight away (and the refusal logged).
    public func accept(_ stream: any ByteStream) {
        guard !isShutDown else {
            Task { await stream.close() }
            return
        }
        guard slots.count < limits.maxInboundConnections else {
            log(.inboundRefused(error: .tooManyInboundConnections(limit: limits.maxInboundConnections)))
            Task { await stream.close() }
            return
        }
        let id = nextSlot
        nextSlot += 1
        slots[id] = Slot(stream: stream)
        // The task reaches the actor only after this method returns, so the slot is
        // complete before the task can remove it.
        slots[id]?.task = Task { await self.serve(stream, slot: id) }
    }

    /// Inbound connections now open or in their handshake.
    public var connectionCount: Int { slots.count }

    /// The open connections from `pubky` (a peer may hold more than one).
    public func connections(from pubky: Pubky) -> [PeerConnection] {
        slots.values.compactMap(\.connection).filter { $0.remotePubky == pubky }
    }

    /// Stops accepting, closes every connection and waits for their tasks to end.
    public func shutdown() async {
        isShutDown = true
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
            log(.handshakeFailed(direction: .inbound, error: error))
            return
        }
        guard !isShutDown else {
            await channel.close()
            return
        }
        let connection = PeerConnection(channel: channel, direction: .inbound, sleeper: sleeper, limits: limits,
                                        log: log, handlers: handlers)
        slots[slot]?.connection = connection
        await connection.start()
        _ = await connection.waitUntilClosed()
    }
}
