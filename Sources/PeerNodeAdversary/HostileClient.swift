import Bitcoin
import Foundation
import HTLC
import Lightning
import Offers
import PeerNode
import Transport

/// Plays one scripted attack against a provider daemon: the honest steps up to the point
/// of cheating (`SwapOpener`), then the cheat, then what the provider did, in the report.
/// It throws only when the script could not be played (unreachable provider or chain, a
/// refusal before the cheat); whatever the provider does to the cheat is the outcome.
struct HostileClient {
    let options: KitOptions
    let log: @Sendable (String) -> Void

    func run() async throws(KitError) -> AttackReport {
        let identity = NodeIdentity(seed: try loadSeed())
        log("kit \(identity.pubky.z32) plays \(options.attack.rawValue) against \(options.provider.z32)")
        let loop: EventLoop
        do { loop = try EventLoop() } catch { throw KitError("cannot start the event loop: \(error)") }
        if options.attack.isFlood {
            let target = FloodTarget(provider: options.provider, host: options.providerHost, port: options.providerPort,
                                     loop: loop)
            let report = await Flood(options: options, target: target, log: log).run()
            await loop.shutdown()
            return report
        }
        let rpc = BitcoinCoreRPC(endpoint: BitcoinCoreEndpoint(host: options.bitcoindHost, port: options.bitcoindPort),
                                 credentials: .user(options.rpcUser, password: options.rpcPassword), loop: loop)
        let chain = KitChain(rpc: rpc)
        let session = ProviderSession(dialer: PeerDialer(identity: identity, loop: loop), provider: options.provider,
                                      host: options.providerHost, port: options.providerPort)
        var lightning: LNDRESTClient?
        do {
            var report = AttackReport(attack: options.attack)
            report.set("kit_pubky", identity.pubky.z32)
            if options.attack.pays { lightning = try await connectLightning(loop) }
            try await play(&report, session: session, chain: chain, lightning: lightning)
            await shutDown(session, rpc, lightning, loop)
            return report
        } catch {
            await shutDown(session, rpc, lightning, loop)
            throw error
        }
    }

    private func play(_ report: inout AttackReport, session: ProviderSession, chain: KitChain,
                      lightning: LNDRESTClient?) async throws(KitError) {
        let attack = options.attack
        let type = attack.contractType
        let opener = SwapOpener(session: session, chain: chain, provider: options.provider, network: options.network, log: log)
        let offer = try await opener.offer()
        let (quote, rate) = try await opener.quote(offer, amountSat: options.amountSat, type: type)
        let preimage = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let claimKey = PrivateKey.random()
        // The kit's claims pay a key of its own: what it steals it keeps, on chain.
        let destination = Address.p2wpkh(pubkeyHash: Hash160.hash(PrivateKey.random().publicKey.compressed))
        report.set("contract_type", type.rawValue)
        report.set("payment_hash", SHA256.hash(preimage).hex)
        report.set("quote_id", quote.quoteID)
        let (reply, request) = try await opener.request(quote, type: type, preimage: preimage, claimKey: claimKey)

        if attack == .retiredP2WSH {
            // The C-1 request: a refusal is the expected outcome, an accept the finding.
            switch reply {
            case .reject(let reject):
                report.set("refused", true)
                report.set("code", reject.code.rawValue)
                report.set("reason", reject.reason)
                log("refused: \(reject.code.rawValue): \(reject.reason)")
            case .swapAccept(let accept):
                report.set("refused", false)
                report.set("swap_id", accept.body.swapID)
                report.set("htlc_address", accept.body.htlcAddress)
                log("ACCEPTED a request for the retired p2wsh layout: swap \(accept.body.swapID); nothing paid")
            default:
                throw KitError("the provider answered the SwapRequest with something else")
            }
            return
        }

        let signed: Signed<SwapAccept>
        switch reply {
        case .swapAccept(let accept): signed = accept
        case .reject(let reject): throw KitError("the provider refused the swap: \(reject.code.rawValue): \(reject.reason)")
        default: throw KitError("the provider answered the SwapRequest with something else")
        }
        report.set("refused", false)
        let swap = try await opener.open(signed, quote: quote, request: request, preimage: preimage, claimKey: claimKey,
                                         amountSat: options.amountSat, rate: rate, destination: destination)
        report.set("swap_id", swap.swapID)
        report.set("invoice_total_sat", quote.totalSat)
        report.set("timeout_height", swap.accept.timeoutHeight)
        guard let lightning else { throw KitError("no Lightning node to pay with") }

        let payment = PaymentWatch()
        await payment.start(lightning, invoice: swap.accept.invoice, totalSat: quote.totalSat, cltvDelta: swap.cltvDelta)
        log("paying the hold invoice: \(quote.totalSat) sat")
        let watcher = LockWatcher(session: session, chain: chain, waitSeconds: options.waitSeconds, log: log)
        let lock = try await watcher.lock(of: swap)
        report.set("lock_txid", lock.outPoint.txid.hex)
        report.set("lock_vout", lock.outPoint.index)
        report.set("lock_sat", lock.value)

        switch attack {
        case .annexClaim, .nonminimalClaim:
            try await mineForgedClaim(&report, swap: swap, lock: lock, chain: chain)
            // The provider can settle only with what the mined witness reveals: nothing is pushed.
            report.set("preimage_pushed", false)
            report.set("preimage", preimage.hex)
            let state = await payment.waitFinal(seconds: min(options.waitSeconds, 120))
            report.set("payment", state.rawValue)
            report.set("payment_detail", await payment.detail)
            report.set("provider_status", try await session.status(of: swap.swapID).status.rawValue)
        case .pushAfterRefund:
            try await pushAfterRefund(&report, swap: swap, lock: lock, watcher: watcher, session: session, chain: chain)
            report.set("payment", await payment.state.rawValue)
        case .retiredP2WSH, .slotChurn, .slotHolders, .quoteFlood, .pushFlood, .addressFlood, .handshakeFlood, .probe:
            // The floods never get here (`run` hands them to `Flood`).
            break
        }
    }

    /// Builds the non-standard claim, shows the mempool refusing it, and mines it anyway.
    private func mineForgedClaim(_ report: inout AttackReport, swap: OpenSwap, lock: LockOutput,
                                 chain: KitChain) async throws(KitError) {
        let tip = try await chain.tipHeight()
        let claim = options.attack == .annexClaim
            ? try ClaimForger.annexed(swap, lock: lock, tipHeight: tip)
            : try ClaimForger.nonMinimal(swap, lock: lock, tipHeight: tip)
        report.set("claim_txid", claim.txid.hex)
        report.set("claim_witness", claim.inputs[0].witness.stack.map(\.hex).joined(separator: " "))
        let offered = await chain.offer(claim)
        report.set("mempool_accepted", offered.accepted)
        report.set("mempool_answer", offered.answer)
        log("sendrawtransaction of the claim: \(offered.accepted ? "accepted" : "refused: \(offered.answer)")")
        let mined = try await chain.mineNow(claim)
        report.set("claim_block", mined.blockhash)
        report.set("claim_height", mined.height)
        log("claim \(claim.txid.hex) mined at height \(mined.height) through hub_mine_transaction")
    }

    /// Never claims; once the provider's refund is out, pushes the real preimage and
    /// reports where the provider stands a few seconds later.
    private func pushAfterRefund(_ report: inout AttackReport, swap: OpenSwap, lock: LockOutput, watcher: LockWatcher,
                                 session: ProviderSession, chain: KitChain) async throws(KitError) {
        let refund = try await watcher.spend(of: lock, timeoutHeight: swap.accept.timeoutHeight)
        report.set("refund_in_mempool", refund != nil)
        if let refund { report.set("refund_txid", refund.txid.hex) }
        report.set("pushed_at_height", try await chain.tipHeight())
        try await session.push(PreimagePush(swapID: swap.swapID, preimage: swap.preimage).encoded)
        report.set("preimage_pushed", true)
        report.set("preimage", swap.preimage.hex)
        log("refund \(refund?.txid.hex ?? "(already confirmed)") is out; pushed the preimage")
        // Long enough for the provider to act on the push if it were going to.
        try? await Task.sleep(nanoseconds: 3_000_000_000)
        report.set("provider_status_after_push", try await session.status(of: swap.swapID).status.rawValue)
        report.set("refund_still_in_mempool", try await chain.mempoolSpender(of: lock.outPoint) != nil)
    }

    private func loadSeed() throws(KitError) -> NodeSeed {
        guard let path = options.seedFile else { return NodeSeed.generate() }
        guard let data = FileManager.default.contents(atPath: path) else { throw KitError("cannot read the seed file \(path)") }
        do { return try NodeSeed(bytes: Array(data)) } catch {
            throw KitError("the seed file \(path) holds \(data.count) bytes, not \(NodeSeed.length)")
        }
    }

    private func connectLightning(_ loop: EventLoop) async throws(KitError) -> LNDRESTClient {
        guard let host = options.lndHost, let port = options.lndPort, let path = options.macaroonPath else {
            throw KitError("no Lightning node given (--lnd, --lnd-macaroon)")
        }
        guard let macaroon = FileManager.default.contents(atPath: path) else { throw KitError("cannot read the macaroon \(path)") }
        let configuration = LNDRESTClient.Configuration(host: host, port: port, macaroon: Array(macaroon), network: options.network)
        do {
            var connector: HTTPClient.Connector = { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) }
            if let certificate = options.tlsCertificatePath {
                connector = TLSHTTPConnector(loop: loop, certificatePath: certificate).connector
            }
            return try await LNDRESTClient.connect(configuration: configuration, sleeper: loop.sleeper, connector: connector)
        } catch {
            throw KitError("cannot use the Lightning node at \(host):\(port): \(error)")
        }
    }

    private func shutDown(_ session: ProviderSession, _ rpc: BitcoinCoreRPC, _ lightning: LNDRESTClient?,
                          _ loop: EventLoop) async {
        await session.close()
        await lightning?.shutDown()
        await rpc.shutDown()
        await loop.shutdown()
    }
}
