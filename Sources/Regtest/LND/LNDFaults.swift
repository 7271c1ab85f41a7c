import Lightning
import Transport
import Synchronization

/// The faults armed on one node's LND REST server, and the streams it has open (so a
/// restart can end them). Shared by the server's handler and the hub's control method.
public final class LNDFaults: Sendable {
    /// LND's router error to its open streams when it stops (`routerrpc.errServerShuttingDown`).
    static let shutdownLine = JSONValue.object(["error": LNDRPCError(.unknown, "routerrpc server shutting down").body])
        .canonicalBytes + [0x0A]

    private struct State {
        var sendStreamErrors = 0
        var silentSendStreams = 0
        var sendErrorsAfterStart = 0
        var silentUnknownInvoice = false
        var nextStream = 0
        var open: [Int: @Sendable () -> Void] = [:]
        var sendRequests = 0
        var sendRequestsByHash: [String: Int] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Arms `fault` (a restart acts at once).
    public func inject(_ fault: LNDFault) {
        let cuts = state.withLock { state -> [@Sendable () -> Void] in
            switch fault {
            case .sendStreamError: state.sendStreamErrors += 1
            case .sendStreamSilent: state.silentSendStreams += 1
            case .sendErrorAfterStart: state.sendErrorsAfterStart += 1
            case .silentUnknownInvoice: state.silentUnknownInvoice = true
            case .clear:
                state.sendStreamErrors = 0
                state.silentSendStreams = 0
                state.sendErrorsAfterStart = 0
                state.silentUnknownInvoice = false
            case .restart:
                let cuts = Array(state.open.values)
                state.open = [:]
                return cuts
            }
            return []
        }
        for cut in cuts { cut() }
    }

    /// Counts one `/v2/router/send` request, and one for its payment hash when its
    /// payment request decodes.
    func countSend(paymentHash: [UInt8]?) {
        state.withLock { state in
            state.sendRequests += 1
            if let paymentHash { state.sendRequestsByHash[paymentHash.hex, default: 0] += 1 }
        }
    }

    /// True once per armed `send_stream_error`: this send stream is the one to break.
    func takeSendStreamError() -> Bool {
        state.withLock { state in
            guard state.sendStreamErrors > 0 else { return false }
            state.sendStreamErrors -= 1
            return true
        }
    }

    /// True once per armed `send_stream_silent`: this send stream goes silent.
    func takeSilentSendStream() -> Bool {
        state.withLock { state in
            guard state.silentSendStreams > 0 else { return false }
            state.silentSendStreams -= 1
            return true
        }
    }

    /// True once per armed `send_error_after_start`: this send's answer is the error.
    func takeSendErrorAfterStart() -> Bool {
        state.withLock { state in
            guard state.sendErrorsAfterStart > 0 else { return false }
            state.sendErrorsAfterStart -= 1
            return true
        }
    }

    /// `send_stream_error` faults armed and not yet used.
    public var sendStreamErrorsArmed: Int { state.withLock { $0.sendStreamErrors } }

    var silentUnknownInvoice: Bool { state.withLock { $0.silentUnknownInvoice } }

    /// Registers an open stream; `cut` ends it with the shutdown line. Returns the key to
    /// `close` it with when it ends by itself.
    func opened(_ cut: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.nextStream += 1
            state.open[state.nextStream] = cut
            return state.nextStream
        }
    }

    func closed(_ key: Int) {
        _ = state.withLock { $0.open.removeValue(forKey: key) }
    }

    /// How many `/v2/router/send` requests the node has had, refused ones included: a
    /// test checks with it that a payment is never sent twice.
    public var sendRequests: Int { state.withLock { $0.sendRequests } }

    /// The same, per payment hash (hex): a scenario checks that its one payment was sent
    /// exactly once.
    public var sendRequestsByHash: [String: Int] { state.withLock { $0.sendRequestsByHash } }

    /// How many streams are open now (for tests).
    public var openStreams: Int { state.withLock { $0.open.count } }
}
