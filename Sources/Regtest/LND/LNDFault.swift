/// A fault a test injects into one node's LND REST server (hub control `hub_ln_fault`):
/// each is something a real LND does to its REST clients, which the simulator would
/// otherwise never do, so a client's handling of it can be tested.
public enum LNDFault: String, Sendable, CaseIterable {
    /// The next `POST /v2/router/send` stream, after its first update, carries the line
    /// LND writes when its router stops (`{"error":{"code":2,"message":"routerrpc server
    /// shutting down"}}`) and ends. The payment itself goes on, as LND resumes it.
    case sendStreamError = "send_stream_error"
    /// The next `POST /v2/router/send` stream, after its first update, says nothing more
    /// and stays open: what a client sees of a connection whose far end vanished with no
    /// FIN or RST reaching it (LND's host lost, a NAT or tunnel dropping the flow). The
    /// payment itself goes on; only a new request learns how it ends.
    case sendStreamSilent = "send_stream_silent"
    /// The next `POST /v2/router/send` registers its payment, which goes on, but is
    /// answered with LND's router shutdown error (HTTP 500, code 2) instead of the stream:
    /// LND stopping between taking a payment and the stream's first update, which its
    /// REST gateway can only report as the call's error (LND-5). A client that reads any
    /// error before the stream as "refused" misses a payment under way.
    case sendErrorAfterStart = "send_error_after_start"
    /// LND restarts: every stream open now carries that shutdown line and ends. Invoices,
    /// held HTLCs and payments stay as they were, as LND keeps them in its database.
    case restart
    /// From now on a subscription to an invoice the node does not know stays open with
    /// nothing on it, as LND keeps it (instead of the simulator's 404).
    case silentUnknownInvoice = "silent_unknown_invoice"
    /// Lifts every standing fault (`silent_unknown_invoice`, an unused `send_stream_error`,
    /// `send_stream_silent` or `send_error_after_start`).
    case clear
}
