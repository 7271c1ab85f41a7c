import Transport

/// The latency of the node's calls to its backends, recorded by their HTTP clients
/// (`HTTPClient.Configuration.latency`) and exported by `/metrics` as
/// `peernode_backend_request_duration_seconds{backend=...}`.
public struct BackendLatency: Sendable {
    public let bitcoind = LatencyHistogram()
    public let lnd = LatencyHistogram()

    public init() {}
}
