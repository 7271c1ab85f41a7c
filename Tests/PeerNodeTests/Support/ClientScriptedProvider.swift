import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Synchronization
import Transport

/// A provider made of the real parts, scripted to drive the client engine's tests until
/// the provider engine lands: `ProviderDesk` for offers and quotes on a `PeerServer`, a
/// hold invoice made through LND REST on the provider's Lightning node, the lock funded by
/// the real `Wallet` when the invoice is ACCEPTED (honestly, short, or never), a status
/// push with the raw lock, and settlement when the preimage arrives. It is not the
/// provider engine: no store, no refunds, no risk limits.
actor ClientScriptedProvider {
    enum Lock: Sendable {
        case honest
        /// Locks this many sat less than agreed.
        case short(by: Int64)
        case never
        /// AUDIT: signs the lock and pushes it, never broadcasts it.
        case pushOnly
    }

    struct Swap: Sendable {
        let request: SwapRequest
        let accept: Signed<SwapAccept>
        let contract: SwapContract
        let client: Pubky
        /// The provider's swap index (its refund key's).
        let index: UInt32
        var lock: ContractFunding?
    }

    nonisolated let identity: NodeIdentity
    nonisolated let clock: ClientTestClock
    nonisolated let terms: ProviderTerms
    let desk: ProviderDesk
    let lnd: LNDRESTClient
    let wallet: Wallet
    let keyChain: SwapKeyChain
    let hub: HubFixture
    var lockBehaviour: Lock
    /// Seconds the clock jumps when a SwapRequest arrives, as if it came that much later.
    var swapRequestDelaySeconds: UInt64 = 0
    /// Runs as the accept leaves, just before the client sends its payment.
    private var onAccept: (@Sendable () -> Void)?
    private(set) var swaps: [String: Swap] = [:]
    private(set) var preimagePushes: [PreimagePush] = []
    private(set) var settled: [String] = []
    /// When set, a pushed preimage is kept and the invoice left held until `settleHeld()`:
    /// a provider that settles late (offline when the preimage came, say).
    private var holdsSettlement = false
    private var heldPreimages: [PreimagePush] = []
    private var server: PeerServer!
    private var sequence: UInt64 = 0

    init(hub: HubFixture, lnd: LNDRESTClient, wallet: Wallet, seed: UInt8, lock: Lock, htlcTimeoutBlocks: Int = 40) throws {
        identity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: seed, count: 32)))
        clock = ClientTestClock()
        terms = ProviderTerms(network: .regtest, htlcTimeoutBlocks: htlcTimeoutBlocks)
        let wallet = wallet
        desk = ProviderDesk(identity: identity, terms: terms, clock: clock, state: {
            ProviderState(liquiditySat: await wallet.balance().confirmed, feeRate: try! FeeRate(satPerVByte: 2))
        })
        self.lnd = lnd
        self.wallet = wallet
        keyChain = try SwapKeyChain(seed: [UInt8](repeating: seed, count: 32), network: .regtest)
        self.hub = hub
        lockBehaviour = lock
    }

    /// The server serving this provider; made on first use (its handlers call back here).
    func peerServer() -> PeerServer {
        if let server { return server }
        let made = PeerServer(identity: identity, sleeper: hub.sleeper, handlers: PeerHandlers(
            onRequest: { [weak self] request, peer in
                guard let self else { return [] }
                return await self.answer(request, from: peer)
            },
            onPush: { [weak self] message, _ in await self?.received(message) }))
        server = made
        return made
    }

    nonisolated var contact: Offers.Contact { Offers.Contact(pubky: identity.pubky, host: "in-memory", port: 1, name: "scripted provider") }

    /// A connector that opens an in-memory connection to this provider.
    nonisolated func connector(clientIdentity: NodeIdentity, sleeper: any Sleeper) -> ClientProviderConnector {
        { [self] contact, handlers in
            let (near, far) = MemoryByteStream.pair()
            await self.peerServer().accept(far)
            return try await PeerConnection.dial(over: near, identity: clientIdentity, expecting: contact.pubky,
                                                 sleeper: sleeper, handlers: handlers)
        }
    }

    func setSwapRequestDelay(_ seconds: UInt64) { swapRequestDelaySeconds = seconds }

    func setOnAccept(_ action: @escaping @Sendable () -> Void) { onAccept = action }

    // MARK: requests

    private func answer(_ bytes: [UInt8], from peer: Pubky) async -> [UInt8] {
        if let reply = await desk.answer(bytes, from: peer) { return reply }
        guard let message = try? SwapMessage(bytes: bytes) else {
            return Reject(requestID: "unknown", code: .invalidRequest, reason: "undecodable").encoded
        }
        switch message {
        case .swapRequest(let request):
            do {
                return try await accept(request, from: peer).encoded
            } catch let error as OffersError {
                return Reject(requestID: request.requestID, error: error).encoded
            } catch {
                return Reject(requestID: request.requestID, code: .internal, reason: "\(error)").encoded
            }
        case .swapStatusRequest(let request):
            guard let swap = swaps[request.swapID] else {
                return Reject(requestID: request.requestID, code: .notFound, reason: "no such swap").encoded
            }
            let lock = swap.lock.map { LockReference(txid: $0.txid.hex, vout: UInt32($0.outputIndex)) }
            return SwapStatusSnapshot(requestID: request.requestID, swapID: request.swapID,
                                      status: lock == nil ? .invoicePending : .lockBroadcast, lock: lock,
                                      timeoutHeight: swap.contract.terms.timeoutHeight).encoded
        default:
            return Reject(requestID: message.requestID ?? "unknown", code: .invalidRequest, reason: "not served").encoded
        }
    }

    private func accept(_ request: SwapRequest, from client: Pubky) async throws -> Signed<SwapAccept> {
        if let existing = swaps.values.first(where: { $0.request.quoteID == request.quoteID && $0.client == client }) {
            return existing.accept
        }
        clock.advance(by: swapRequestDelaySeconds)
        let quote = try await desk.redeem(quoteID: request.quoteID, client: client)
        let index = UInt32(swaps.count)
        let refundKey = try keyChain.secrets(index: index, scheme: .current).refundKey
        let policy = try TimelockPolicy(requiredConfirmations: quote.requiredConfirmations,
                                        htlcTimeoutBlocks: quote.htlcTimeoutBlocks)
        let timeout = policy.timeoutHeight(tipHeight: UInt32(hub.chain.height))
        let contract = try SwapContract(type: request.scriptType, terms: try SwapTerms(
            network: .regtest, paymentHash: request.paymentHash, claimPublicKey: request.claimPublicKey,
            refundPublicKey: refundKey.publicKey, timeoutHeight: timeout))
        let invoice = try await lnd.addHoldInvoice(paymentHash: request.paymentHash, amountMsat: UInt64(quote.totalSat) * 1_000,
                                                   memo: "swap", expirySeconds: 3_600,
                                                   cltvExpiry: UInt64(policy.holdInvoiceFinalCLTVDelta))
        let swapID = "p-" + RandomID.make()
        let accept = Signed(signing: SwapAccept(requestID: request.requestID, swapID: swapID, quoteID: quote.quoteID,
                                                invoice: invoice, amountSat: quote.amountSat, totalSat: quote.totalSat,
                                                contract: contract), with: identity)
        swaps[swapID] = Swap(request: request, accept: accept, contract: contract, client: client, index: index)
        let stream = lnd.subscribeInvoice(paymentHash: request.paymentHash)
        Task { [weak self] in
            do {
                for try await status in stream where status.state == .accepted {
                    await self?.invoiceAccepted(swapID)
                    return
                }
            } catch {}
        }
        onAccept?()
        return accept
    }

    /// The client's payment is held: lock as scripted and push the raw lock.
    private func invoiceAccepted(_ swapID: String) async {
        guard var swap = swaps[swapID] else { return }
        let amount: Int64
        switch lockBehaviour {
        case .never: return
        case .honest: amount = swap.accept.body.amountSat
        case .short(let by): amount = swap.accept.body.amountSat - by
        case .pushOnly: amount = swap.accept.body.amountSat
        }
        do {
            _ = try await wallet.sync()
            let funding: ContractFunding
            if case .pushOnly = lockBehaviour {
                funding = try await wallet.prepareFunding(contract: swap.contract, amount: amount, feeRate: try FeeRate(satPerVByte: 2))
            } else {
                funding = try await wallet.fund(contract: swap.contract, amount: amount, feeRate: try FeeRate(satPerVByte: 2))
            }
            swap.lock = funding
            swaps[swapID] = swap
            sequence += 1
            let update = SwapStatusUpdate(swapID: swapID, sequence: sequence, status: .lockBroadcast,
                                          lock: LockReference(txid: funding.txid.hex, vout: UInt32(funding.outputIndex)),
                                          lockTransactionHex: funding.transaction.serialized.hex)
            for connection in await peerServer().connections(from: swap.client) {
                try? await connection.push(update.encoded)
            }
        } catch {
            print("scripted provider: lock failed: \(error)")
        }
    }

    private func received(_ bytes: [UInt8]) async {
        guard case .preimagePush(let push)? = try? SwapMessage(bytes: bytes) else { return }
        preimagePushes.append(push)
        guard swaps[push.swapID] != nil else { return }
        if holdsSettlement {
            heldPreimages.append(push)
            return
        }
        do {
            try await lnd.settleInvoice(preimage: push.preimage)
            settled.append(push.swapID)
        } catch {
            print("scripted provider: settle failed: \(error)")
        }
    }

    func holdSettlement() { holdsSettlement = true }

    /// Settles every invoice whose preimage `holdSettlement()` kept back, and stops holding.
    func settleHeld() async throws {
        holdsSettlement = false
        for push in heldPreimages {
            try await lnd.settleInvoice(preimage: push.preimage)
            settled.append(push.swapID)
        }
        heldPreimages = []
    }

    /// A provider scripted `.never` that locks honestly after all (late: after a client
    /// restart, say).
    func lockLate(_ swapID: String) async {
        lockBehaviour = .honest
        await invoiceAccepted(swapID)
    }

    /// Takes the lock of the only swap back through its refund path (valid once the tip
    /// has reached the timeout) and broadcasts it; returns the refund.
    func refundTheLock() async throws -> Transaction {
        guard let swap = swaps.values.first, let lock = swap.lock else { throw ProviderScriptError.nothingLocked }
        let refundKey = try keyChain.secrets(index: swap.index, scheme: .current).refundKey
        let output = LockOutput(outPoint: OutPoint(txid: lock.txid, index: UInt32(lock.outputIndex)),
                                value: lock.transaction.outputs[lock.outputIndex].value)
        let refund = try RefundBuilder.build(RefundRequest(contract: swap.contract, lock: output,
                                                           destination: await wallet.newAddress().address,
                                                           feeRate: try FeeRate(satPerVByte: 2)), refundKey: refundKey)
        _ = try await hub.backend.broadcast(refund.transaction)
        return refund.transaction
    }

    enum ProviderScriptError: Error { case nothingLocked }

    func cancelInvoice(of swapID: String) async throws {
        guard let swap = swaps[swapID] else { return }
        try await lnd.cancelInvoice(paymentHash: swap.request.paymentHash)
    }

    func shutDown() async {
        await server?.shutdown()
    }
}
