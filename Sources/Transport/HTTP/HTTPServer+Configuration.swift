extension HTTPServer {
    public struct Configuration: Sendable {
        /// Parser limits for requests (1 MiB bodies by default).
        public var limits: HTTPParser.Limits
        /// A connection with no request in progress for this long is closed quietly.
        public var idleTimeoutMilliseconds: UInt64?
        /// A request must arrive completely within this long of its first byte, and each
        /// response write must finish within it; otherwise 408 (when possible) and close.
        /// This is what stops a peer trickling one byte at a time from holding a slot.
        public var requestTimeoutMilliseconds: UInt64?
        /// Connections `acceptLoop` serves at once; more are closed on arrival.
        public var maxConnections: Int

        public init(limits: HTTPParser.Limits = .server, idleTimeoutMilliseconds: UInt64? = 60_000,
                    requestTimeoutMilliseconds: UInt64? = 30_000, maxConnections: Int = 256) {
            self.limits = limits
            self.idleTimeoutMilliseconds = idleTimeoutMilliseconds
            self.requestTimeoutMilliseconds = requestTimeoutMilliseconds
            self.maxConnections = maxConnections
        }
    }
}
