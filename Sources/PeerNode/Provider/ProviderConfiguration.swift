import Bitcoin
import HTLC
import Offers
import Transport

/// How the provider engine runs its swaps (the daemon's config fills it in).
public struct ProviderConfiguration: Sendable {
    public var network: Network
    /// How long the client has to pay the hold invoice (a client pays right after the
    /// accept: minutes are plenty, and an unpaid accept holds a share of the peer's limits
    /// until then, audit M-5). The invoice is also cancelled earlier if the timeout comes
    /// too close to lock safely.
    public var invoiceExpirySeconds: UInt64
    /// Confirmation target for the lock's fee estimate: the client waits for it.
    public var lockConfirmationTarget: Int
    /// Confirmation target for the first refund's fee estimate; bumps go above it.
    public var refundConfirmationTarget: Int
    /// The share of the lock a refund may pay in fees at the timeout; the share rises to
    /// all of the lock but dust by the HTLC deadline (`RefundEscalation`). Above the share
    /// of the moment the refund is rebroadcast as it is.
    public var maxRefundFeePercent: Int64
    /// What each refund bump adds at least (BIP125 needs more than the incremental relay
    /// fee per vbyte of the replacement; 1 sat/vB covers Core's default).
    public var refundBumpStep: FeeRate
    /// Regtest tests only: lock the wrong amount or never (`LockFault`); nil for a provider
    /// that keeps its word.
    public var lockFault: LockFault?
    /// Regtest tests only: refuse or ignore cooperative claims while offering them
    /// (`CoopFault`); nil for a provider that co-signs as its offers say.
    public var coopFault: CoopFault?

    public init(network: Network, invoiceExpirySeconds: UInt64 = 600, lockConfirmationTarget: Int = 2,
                refundConfirmationTarget: Int = 6, maxRefundFeePercent: Int64 = 25,
                refundBumpStep: FeeRate = ProviderConfiguration.oneSatPerVByte, lockFault: LockFault? = nil,
                coopFault: CoopFault? = nil) {
        self.network = network
        self.invoiceExpirySeconds = invoiceExpirySeconds
        self.lockConfirmationTarget = lockConfirmationTarget
        self.refundConfirmationTarget = refundConfirmationTarget
        self.maxRefundFeePercent = maxRefundFeePercent
        self.refundBumpStep = refundBumpStep
        self.lockFault = lockFault
        self.coopFault = coopFault
    }

    // 1000 sat/kvB is within FeeRate's range, so this cannot fail.
    public static let oneSatPerVByte = try! FeeRate(satPerKvB: 1_000)
}

/// Sends a push (a `SwapStatusUpdate`) to a client if it is connected. Pushes are a
/// courtesy: a client that misses one asks with `SwapStatusRequest`.
public typealias ProviderPush = @Sendable (_ client: Pubky, _ message: [UInt8]) async -> Void

/// Sends a request to a client over a connection the client opened (the provider cannot
/// dial its clients) and returns the reply: a submarine provider asking its client to
/// co-sign its claim. Throws when no connection from the client opens within the time, or
/// none answers in time.
public typealias ProviderRequest = @Sendable (_ client: Pubky, _ message: [UInt8], _ requestID: String,
                                              _ timeoutMilliseconds: UInt64) async throws -> [UInt8]

/// Where the engine's log lines go. Lines name swaps, states, txids and amounts; never a
/// preimage or a key.
public struct ProviderLog: Sendable {
    public let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    public static let silent = ProviderLog { _ in }

    func callAsFunction(_ line: String) { write(line) }
}

extension PeerServer {
    /// A `ProviderPush` that sends to every open connection from the client.
    public nonisolated var providerPush: ProviderPush {
        { client, message in
            for connection in await self.connections(from: client) {
                // A closed connection is the client's problem: it asks for the status later.
                try? await connection.push(message)
            }
        }
    }

    /// A `ProviderRequest` over the client's connections. A client idle for a minute is
    /// disconnected and dials again, so a moment without one is waited out (within the
    /// time). A client may hold several connections (its reverse and submarine engines
    /// dial apart, and only the one serving the request answers it): the request goes to
    /// each, and the first reply that is not a Reject wins.
    public nonisolated var providerRequest: ProviderRequest {
        { client, message, requestID, timeoutMilliseconds in
            let deadline = MonotonicClock.milliseconds() + timeoutMilliseconds
            var connections = await self.connections(from: client)
            while connections.isEmpty {
                guard MonotonicClock.milliseconds() < deadline else { throw ChannelError.closed }
                try await Task.sleep(for: .milliseconds(100))
                connections = await self.connections(from: client)
            }
            let left = max(1, deadline - min(deadline, MonotonicClock.milliseconds()))
            return try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                for connection in connections {
                    group.addTask { try? await connection.request(message, id: requestID, timeoutMilliseconds: left) }
                }
                var refusal: [UInt8]?
                for try await reply in group {
                    guard let reply else { continue }
                    if case .reject? = try? SwapMessage(bytes: reply) {
                        refusal = reply
                        continue
                    }
                    group.cancelAll()
                    return reply
                }
                guard let refusal else { throw ChannelError.requestTimedOut(milliseconds: timeoutMilliseconds) }
                return refusal
            }
        }
    }
}
