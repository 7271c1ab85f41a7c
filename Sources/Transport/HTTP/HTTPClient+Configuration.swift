extension HTTPClient {
    public struct Configuration: Sendable {
        /// Connections kept per endpoint; concurrent requests beyond this wait their turn.
        public var maxConnectionsPerEndpoint: Int
        /// Limit for one `send` (connect, write, whole response) and for `stream` up to the
        /// response head; nil waits forever.
        public var timeoutMilliseconds: UInt64?
        /// An idle connection older than this is closed rather than reused; keep it below
        /// the server's own idle timeout (Bitcoin Core's `rpcservertimeout` is 30 s).
        public var maxIdleMilliseconds: UInt64
        /// Parser limits for responses; `maxBodyBytes` applies to `send` only.
        public var limits: HTTPParser.Limits
        /// Longest line `stream` accepts; a streamed body itself may be endless.
        public var maxStreamLineBytes: Int
        /// Added to every request that does not set a field of the same name: credentials
        /// (Basic auth, `Grpc-Metadata-macaroon`) and content types.
        public var headers: HTTPHeaders
        /// When set, every `send` (connect, write, whole response; failures too) records
        /// its duration here; streams do not, since they stay open by design.
        public var latency: LatencyHistogram?

        public init(maxConnectionsPerEndpoint: Int = 4, timeoutMilliseconds: UInt64? = 30_000,
                    maxIdleMilliseconds: UInt64 = 15_000, limits: HTTPParser.Limits = .client,
                    maxStreamLineBytes: Int = 1024 * 1024, headers: HTTPHeaders = HTTPHeaders(),
                    latency: LatencyHistogram? = nil) {
            self.latency = latency
            self.maxConnectionsPerEndpoint = maxConnectionsPerEndpoint
            self.timeoutMilliseconds = timeoutMilliseconds
            self.maxIdleMilliseconds = maxIdleMilliseconds
            self.limits = limits
            self.maxStreamLineBytes = maxStreamLineBytes
            self.headers = headers
        }
    }
}
