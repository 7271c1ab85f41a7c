import Bitcoin
import Transport

extension LNDRESTClient {
    /// Where the node is and how to talk to it.
    public struct Configuration: Sendable {
        /// The host LND's tls.cert names (its IP or name); loopback for plain HTTP.
        public var host: String
        /// LND's `restlisten` port (8080 by default).
        public var port: Int
        /// The macaroon file's bytes (`admin.macaroon`, or one with invoices and offchain
        /// permissions); sent hex-encoded.
        public var macaroon: [UInt8]
        /// The network this node runs on; a backend on another is refused.
        public var network: Network
        /// Limit for one call (a stream: until its head arrives).
        public var requestTimeoutMilliseconds: UInt64
        /// Wait between attempts to re-open a broken invoice subscription, each preceded
        /// by a lookup; also the polling interval while subscribing keeps failing.
        public var subscriptionRetryMilliseconds: UInt64
        /// When set, every short call (not the streams) records its duration here: the
        /// node's `/metrics` exports it as LND's latency.
        public var latency: LatencyHistogram?

        public init(host: String, port: Int, macaroon: [UInt8], network: Network,
                    requestTimeoutMilliseconds: UInt64 = 30_000, subscriptionRetryMilliseconds: UInt64 = 2_000,
                    latency: LatencyHistogram? = nil) {
            self.latency = latency
            self.host = host
            self.port = port
            self.macaroon = macaroon
            self.network = network
            self.requestTimeoutMilliseconds = requestTimeoutMilliseconds
            self.subscriptionRetryMilliseconds = subscriptionRetryMilliseconds
        }
    }
}
