/// What a node does with messages a peer starts: requests (answered) and pushes (not).
public struct PeerHandlers: Sendable {
    /// Answers one request; the reply should echo the request's `request_id`. Requests from
    /// one peer run concurrently, up to `PeerLimits.maxInFlightRequests`.
    public typealias RequestHandler = @Sendable (_ request: [UInt8], _ peer: Pubky) async -> [UInt8]
    /// Takes one push. Pushes from one peer are handled one at a time, in arrival order.
    public typealias PushHandler = @Sendable (_ message: [UInt8], _ peer: Pubky) async -> Void

    /// Nil: this side serves no requests, and messages with an unknown `request_id` are
    /// delivered as pushes.
    public var onRequest: RequestHandler?
    /// Nil: pushes are dropped.
    public var onPush: PushHandler?

    public init(onRequest: RequestHandler? = nil, onPush: PushHandler? = nil) {
        self.onRequest = onRequest
        self.onPush = onPush
    }
}
