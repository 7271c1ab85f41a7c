import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Transport

/// The other side of a client submarine swap, made of the real parts and scripted: the
/// real `ProviderDesk` signs offers and `onchain_to_ln` quotes on a `PeerServer`; a
/// SubmarineSwapRequest gets a `SubmarineSwapAccept` built with the real HTLC types and
/// signed by its identity (honest, or wrong in one way); and when the test says so it pays
/// the client's invoice through its LND on the hub and claims the lock with the preimage
/// the payment returned. It is the adversary of the client engine's tests, not the
/// provider engine: no store, no rules of its own.
actor SubmarineScriptedProvider {
    enum AcceptFault: Sendable, CaseIterable {
        case none
        /// `total_sat` below the quote's.
        case amount
        /// A payment hash that is not the invoice's.
        case hash
        /// A timeout 20 blocks before where the quote puts it.
        case timeout
        /// An address and scripts of a contract whose refund key is not the client's.
        case contract
    }

    struct Swap: Sendable {
        let request: SubmarineSwapRequest
        let accept: Signed<SubmarineSwapAccept>
        let contract: SwapContract
        let claimKey: PrivateKey
    }

    /// What the provider needs of a chain: its tip and a broadcast (the in-process hub, or
    /// a daemon test's hub over RPC).
    struct Chain: Sendable {
        let tipHeight: @Sendable () async throws -> Int
        let broadcast: @Sendable (Transaction) async throws -> Void
    }

    nonisolated let identity: NodeIdentity
    nonisolated let terms: ProviderTerms
    let desk: ProviderDesk
    let lnd: LNDRESTClient
    let keyChain: SwapKeyChain
    let chain: Chain
    let sleeper: any Sleeper
    /// The in-process hub, when there is one (`lock(of:)` reads it).
    let hub: HubFixture?
    var fault: AcceptFault
    private var listener: PeerListener?
    private(set) var swaps: [String: Swap] = [:]
    private(set) var claims: [TransactionID] = []
    private var server: PeerServer?

    init(hub: HubFixture, lnd: LNDRESTClient, seed: UInt8, fault: AcceptFault = .none, htlcTimeoutBlocks: Int = 48,
         feePPM: Int64 = 2_000, cooperates: Bool = false) throws {
        try self.init(chain: Chain(tipHeight: { hub.height }, broadcast: { _ = try await hub.backend.broadcast($0) }),
                      sleeper: hub.sleeper, hub: hub, lnd: lnd, seed: seed, fault: fault, htlcTimeoutBlocks: htlcTimeoutBlocks,
                      feePPM: feePPM, cooperates: cooperates)
    }

    /// `reverseLiquiditySat` above 0 also offers `ln_to_onchain` (never served): today's
    /// `Router` keeps only offers that run that direction. `cooperates`: the offers list
    /// `musig2` (`coopClaimRequest` builds the request a cooperating provider sends).
    init(chain: Chain, sleeper: any Sleeper, hub: HubFixture? = nil, lnd: LNDRESTClient, seed: UInt8,
         fault: AcceptFault = .none, htlcTimeoutBlocks: Int = 48, feePPM: Int64 = 2_000, reverseLiquiditySat: Int64 = 0,
         cooperates: Bool = false) throws {
        identity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: seed, count: 32)))
        // Short, for refunds the tests mine to: no route allowance (the scripted provider pays
        // nothing through `SubmarineRules`), so 1 + 12 + 12 + 3 + 18 = 46 at least.
        let submarine = try SubmarineTerms(feeModel: FeeModel(baseFeeSat: 100, feePPM: feePPM), requiredConfirmations: 1,
                                           htlcTimeoutBlocks: htlcTimeoutBlocks, routeCLTVBlocks: 0)
        terms = ProviderTerms(network: .regtest,
                              extraFeatures: [OfferFeature.preimagePush] + (cooperates ? [OfferFeature.musig2] : []),
                              submarine: submarine)
        desk = ProviderDesk(identity: identity, terms: terms, clock: ClientWallClock(), state: {
            ProviderState(liquiditySat: reverseLiquiditySat, feeRate: try! FeeRate(satPerVByte: 2), lightningOutboundSat: 5_000_000)
        })
        self.lnd = lnd
        keyChain = try SwapKeyChain(seed: [UInt8](repeating: seed, count: 32), network: .regtest)
        self.chain = chain
        self.sleeper = sleeper
        self.hub = hub
        self.fault = fault
    }

    func peerServer() -> PeerServer {
        if let server { return server }
        let made = PeerServer(identity: identity, sleeper: sleeper, handlers: PeerHandlers(
            onRequest: { [weak self] request, peer in
                guard let self else { return [] }
                return await self.answer(request, from: peer)
            }))
        server = made
        return made
    }

    nonisolated var contact: Offers.Contact {
        Offers.Contact(pubky: identity.pubky, host: "in-memory", port: 1, name: "submarine provider")
    }

    nonisolated func connector(clientIdentity: NodeIdentity, sleeper: any Sleeper) -> ClientProviderConnector {
        { [self] contact, handlers in
            let (near, far) = MemoryByteStream.pair()
            await self.peerServer().accept(far)
            return try await PeerConnection.dial(over: near, identity: clientIdentity, expecting: contact.pubky,
                                                 sleeper: sleeper, handlers: handlers)
        }
    }

    /// The offer a probe gets, as the client's router would hold it.
    func probedOffer(clientIdentity: NodeIdentity) async throws -> ProviderOffer {
        let prober = PeerOfferProber(identity: clientIdentity, network: .regtest, sleeper: sleeper) { [self] _ in
            let (near, far) = MemoryByteStream.pair()
            await self.peerServer().accept(far)
            return near
        }
        guard case .offer(let offer) = await prober.probe(contact, timeoutMilliseconds: 10_000) else {
            throw OffersError.unexpectedReply
        }
        return ProviderOffer(contact: contact, offer: offer)
    }

    private func answer(_ bytes: [UInt8], from peer: Pubky) async -> [UInt8] {
        if let reply = await desk.answer(bytes, from: peer) { return reply }
        guard case .submarineSwapRequest(let request)? = try? SwapMessage(bytes: bytes) else {
            return Reject(requestID: "unknown", code: .invalidRequest, reason: "not served").encoded
        }
        do {
            return try await accept(request, from: peer).encoded
        } catch let error as OffersError {
            return Reject(requestID: request.requestID, error: error).encoded
        } catch {
            return Reject(requestID: request.requestID, code: .internal, reason: "\(error)").encoded
        }
    }

    private func accept(_ request: SubmarineSwapRequest, from client: Pubky) async throws -> Signed<SubmarineSwapAccept> {
        let quote = try await desk.redeem(quoteID: request.quoteID, client: client)
        let invoice = try InvoiceDecoder.decode(request.invoice)
        let claimKey = try keyChain.secrets(index: UInt32(swaps.count), scheme: .current).claimKey
        let timeout = UInt32(try await chain.tipHeight() + quote.htlcTimeoutBlocks)
        let contract = try Self.contract(request.scriptType, hash: invoice.paymentHash, claimKey: claimKey.publicKey,
                                         refundKey: request.refundPublicKey, timeout: timeout)
        let swapID = "ps-" + RandomID.make()
        var body = SubmarineSwapAccept(requestID: request.requestID, swapID: swapID, quoteID: quote.quoteID,
                                       amountSat: quote.amountSat, totalSat: quote.totalSat, contract: contract)
        switch fault {
        case .none: break
        case .amount: body.totalSat -= 1_000
        case .hash:
            let other = SHA256.hash(Array("not the invoice".utf8))
            body = SubmarineSwapAccept(requestID: request.requestID, swapID: swapID, quoteID: quote.quoteID,
                                       amountSat: quote.amountSat, totalSat: quote.totalSat,
                                       contract: try Self.contract(request.scriptType, hash: other, claimKey: claimKey.publicKey,
                                                                   refundKey: request.refundPublicKey, timeout: timeout))
        case .timeout:
            body = SubmarineSwapAccept(requestID: request.requestID, swapID: swapID, quoteID: quote.quoteID,
                                       amountSat: quote.amountSat, totalSat: quote.totalSat,
                                       contract: try Self.contract(request.scriptType, hash: invoice.paymentHash,
                                                                   claimKey: claimKey.publicKey,
                                                                   refundKey: request.refundPublicKey, timeout: timeout - 20))
        case .contract:
            // The fields name the client's key; the address pays a contract it cannot refund.
            let stranger = try PrivateKey([UInt8](repeating: 0x5e, count: 32)).publicKey
            let other = try Self.contract(request.scriptType, hash: invoice.paymentHash, claimKey: claimKey.publicKey,
                                          refundKey: stranger, timeout: timeout)
            body.htlcAddress = other.encodedAddress
            body.scripts = SwapAccept.Scripts(contract: other)
        }
        let signed = Signed(signing: body, with: identity)
        swaps[swapID] = Swap(request: request, accept: signed, contract: contract, claimKey: claimKey)
        return signed
    }

    static func contract(_ type: ContractType, hash: [UInt8], claimKey: PublicKey, refundKey: PublicKey,
                         timeout: UInt32) throws -> SwapContract {
        try SwapContract(type: type, terms: try SwapTerms(network: .regtest, paymentHash: hash, claimPublicKey: claimKey,
                                                          refundPublicKey: refundKey, timeoutHeight: timeout, roles: .submarine))
    }

    var onlySwap: Swap? { swaps.values.first }

    /// The lock paying swap's contract, from the chain or the mempool.
    func lock(of swap: Swap) -> LockOutput? {
        guard let hub else { return nil }
        let script = swap.contract.scriptPubKey
        for transaction in hub.transactions(fromHeight: 0) {
            if let index = transaction.outputs.firstIndex(where: { $0.scriptPubKey == script }) {
                return LockOutput(outPoint: OutPoint(txid: transaction.txid, index: UInt32(index)),
                                  value: transaction.outputs[index].value)
            }
        }
        return nil
    }

    /// Pays the client's invoice from the provider's Lightning balance; returns the preimage.
    func payInvoice(of swap: Swap) async throws -> [UInt8] {
        for try await update in lnd.payInvoice(paymentRequest: swap.request.invoice, feeLimitSat: 1_000, cltvLimit: 0,
                                               timeoutSeconds: 30) {
            switch update.status {
            case .succeeded(let preimage): return preimage
            case .failed(let reason): throw OffersError.noRoute("the payment failed: \(reason)")
            case .inFlight: continue
            }
        }
        throw OffersError.noRoute("the payment stream ended")
    }

    /// Claims `lock` with `preimage` through the claim path, 600 sat of fee, to nobody's address.
    func claim(_ swap: Swap, lock: LockOutput, preimage: [UInt8]) async throws -> Transaction {
        let unsigned = Transaction(
            version: 2, inputs: [TransactionInput(previousOutput: lock.outPoint, sequence: TransactionInput.replaceableSequence)],
            outputs: [TransactionOutput(value: lock.value - 600, scriptPubKey: HubFixture.elsewhere.script)], lockTime: 0)
        let claim = try SpendSigner.sign(unsigned, contract: swap.contract, lockValue: lock.value,
                                         path: .claim(preimage: preimage), key: swap.claimKey)
        try await chain.broadcast(claim)
        claims.append(claim.txid)
        return claim
    }

    /// The `CoopClaimRequest` a cooperating provider sends once it has paid: `preimage` and
    /// a fresh round of its key-path claim of `lock` to nobody's address at 2 sat/vB.
    func coopClaimRequest(_ swap: Swap, lock: LockOutput, preimage: [UInt8]) async throws -> CoopClaimRequest {
        let blocksLeft = Int(swap.contract.terms.timeoutHeight) - (try await chain.tipHeight())
        let request = ClaimRequest(contract: swap.contract, lock: lock, destination: HubFixture.elsewhere, amount: lock.value - 600,
                                   purpose: .swapOut, feeRate: try FeeRate(satPerVByte: 2), blocksLeft: blocksLeft)
        let initiator = try CoopClaimInitiator(request: request, claimKey: swap.claimKey)
        return CoopClaimRequest(requestID: RandomID.make(), swapID: swap.accept.body.swapID, preimage: preimage,
                                publicNonce: initiator.publicNonce, claimTransaction: initiator.unsignedClaim)
    }

    /// Serves this provider over TCP on loopback (a daemon dials it as a contact); the port.
    func listen(loop: EventLoop) async throws -> Int {
        let started = try await PeerListener.start(server: peerServer(), loop: loop)
        listener = started
        return started.port
    }

    func shutDown() async {
        await listener?.close()
        await server?.shutdown()
    }
}
