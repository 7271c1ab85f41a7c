import Bitcoin
import Lightning
import Offers

extension SubmarineProviderEngine {
    /// Checks the Lightning side before the machine decides to pay: LND reads the invoice
    /// as the swap was accepted (hash, amount, payee), and can send it with its routing
    /// reserve now. Answers with the tip and the clock of this moment.
    func preparePayment(_ swap: SubmarineProviderRecord) async -> SubmarineProviderInput {
        let id = swap.swapID
        let lightning = dependencies.lightning
        do {
            let details = try await lightning.decodeInvoice(swap.request.invoice)
            guard details.paymentHash == swap.paymentHash, details.amountMsat == UInt64(swap.amountSat) * 1_000,
                  details.destination == swap.invoice.payeeNodeID else {
                log("ALARM submarine swap \(id): LND reads the invoice differently from the accepted one; not paying it")
                return .paymentNotReady
            }
            let spendableSat = Int64(clamping: try await lightning.spendableBalance() / 1_000)
            let needed = promise(for: swap)
            guard spendableSat >= needed else {
                log("submarine swap \(id): \(spendableSat) sat sendable over Lightning, \(needed) needed; tried again at the next block")
                return .paymentNotReady
            }
            let tip = try await dependencies.chain.tip()
            return .paymentReady(tipHeight: UInt32(clamping: tip.height), nowUnix: dependencies.clock.nowUnix)
        } catch {
            log("submarine swap \(id): the payment cannot be prepared yet: \(error)")
            return .paymentNotReady
        }
    }

    /// Sends the payment, once: only the step that stored `payment_intent` asks for it, and
    /// a swap follows one payment stream at a time. Whatever breaks after the send is
    /// tracked, never sent again.
    func pay(_ swap: SubmarineProviderRecord, cltvLimit: UInt32) {
        let id = swap.swapID
        guard payments[id] == nil else { return }
        let lightning = dependencies.lightning
        let request = swap.request.invoice
        let feeLimit = UInt64(clamping: configuration.routingReserve.fee(paymentSat: swap.amountSat))
        let timeout = configuration.paymentTimeoutSeconds
        let hash = swap.paymentHash
        // The tip the machine counted the limit from (limit = T − tip − margin); LND counts
        // it from its own best block.
        let tip = UInt32(clamping: Int(swap.contract.terms.timeoutHeight) - SubmarineRules.cltvMarginBlocks - Int(cltvLimit))
        payments[id] = Task { [weak self] in
            let lightningHeight = try? await lightning.info().blockHeight
            let limit = SubmarineRules.cltvLimit(cltvLimit, countedFrom: tip, lightningHeight: lightningHeight)
            self?.log("submarine swap \(id): paying \(swap.amountSat) sat, fee limit \(feeLimit) sat, cltv_limit \(limit)"
                + (limit == cltvLimit ? "" : " (\(cltvLimit) from block \(tip); LND is at \(lightningHeight ?? 0))"))
            let stream = lightning.payInvoice(paymentRequest: request, feeLimitSat: feeLimit, cltvLimit: limit,
                                              timeoutSeconds: timeout)
            do {
                var started = false
                for try await update in stream {
                    if !started {
                        started = true
                        await self?.deliver(.paymentStarted, to: id)
                    }
                    await self?.recordRoutingFee(update, swapID: id)
                    await self?.deliverPayment(update.status, to: id)
                    if update.status.isFinal { break }
                }
            } catch let error as LightningBackendError {
                switch error {
                case .lnd where error.isAlreadyExists, .paymentStatusUnknown, .unreachable, .connectionRefused:
                    // The node may have the payment: its outcome comes from tracking.
                    self?.log("submarine swap \(id): \(error); tracking the payment")
                    await self?.follow(id, paymentHash: hash)
                case .lnd:
                    // An error before the stream began: a refusal (an expired invoice, a
                    // limit no route fits under) once the node confirms it has no record of
                    // the payment. One it had taken before it stopped, unable to say so but
                    // by the call's error (LND-5), is followed like any other.
                    self?.log("submarine swap \(id): the send was answered \(error); looking the payment up")
                    await self?.follow(id, paymentHash: hash, refusal: error.description)
                default:
                    await self?.follow(id, paymentHash: hash)
                }
            } catch {
                await self?.follow(id, paymentHash: hash)
            }
            await self?.paymentEnded(id)
        }
    }

    /// Follows a payment already sent (after a restart, or a broken stream); never sends.
    /// While the swap already follows its payment, looks its state up once instead.
    func trackPayment(_ swap: SubmarineProviderRecord) {
        let id = swap.swapID
        let hash = swap.paymentHash
        guard payments[id] == nil else {
            lookUpPayment(id, paymentHash: hash)
            return
        }
        payments[id] = Task { [weak self] in
            await self?.follow(id, paymentHash: hash)
            await self?.paymentEnded(id)
        }
    }

    /// One look at the payment's state beside the stream the swap follows (asked at each
    /// block). A stream can go silent without ending: a connection whose peer vanished
    /// with no FIN or RST reaching us (LND's host lost, a NAT or tunnel dropping it) stays
    /// open, and the SUCCEEDED the claim needs would never be read; the client refunds at
    /// the timeout (review of 2026-12-07). LND answers a tracking request with the current
    /// state at once. A look still open at the next block is replaced; a final answer also
    /// ends the silent stream.
    private func lookUpPayment(_ id: String, paymentHash: [UInt8]) {
        paymentLookups[id]?.cancel()
        let lightning = dependencies.lightning
        paymentLookups[id] = Task { [weak self] in
            var first: PaymentUpdate?
            do {
                for try await update in lightning.trackPayment(paymentHash: paymentHash) {
                    first = update
                    break
                }
            } catch {
                return  // unknown or unreachable: the stream, or the next block's look, tells
            }
            guard !Task.isCancelled, let first, let self else { return }
            await self.lookedUp(first, swapID: id)
        }
    }

    private func lookedUp(_ update: PaymentUpdate, swapID id: String) async {
        paymentLookups[id] = nil
        guard update.status.isFinal else { return }
        // Usually the stream has said it too (then the machine has moved on and ignores
        // this); when it went silent, this is how the swap learns it.
        log("submarine swap \(id): the payment's lookup found it final; its stream, if still open, is closed")
        await recordRoutingFee(update, swapID: id)
        await deliverPayment(update.status, to: id)
        payments[id]?.cancel()
    }

    /// Reads the payment's updates from LND's tracking until it is final; a payment LND
    /// never had is `.paymentNotFound`, or failed with `refusal` when the send was refused
    /// with it. A broken stream ends this round: the next block's `trackPayment` starts
    /// another.
    private func follow(_ id: String, paymentHash: [UInt8], refusal: String? = nil) async {
        // A stream closed on purpose (a lookup found the payment final, or shutdown).
        guard !Task.isCancelled else { return }
        do {
            for try await update in dependencies.lightning.trackPayment(paymentHash: paymentHash) {
                await recordRoutingFee(update, swapID: id)
                await deliverPayment(update.status, to: id)
                if update.status.isFinal { return }
            }
        } catch let error as LightningBackendError where error.isNotFound {
            if let refusal {
                await deliverPayment(.failed(.other(refusal)), to: id)
            } else {
                deliver(.paymentNotFound, to: id)
            }
        } catch {
            log("submarine swap \(id): tracking the payment: \(error); again at the next block")
        }
    }

    /// Where the routing fee of a swap's successful payment is recorded (accounting).
    static func routingFeeKey(_ swapID: String) -> String { "provider.submarine_routing_fee_msat.\(swapID)" }

    /// The routing fee recorded for `swapID`, msat; nil when none was.
    public static func recordedRoutingFee(_ swapID: String, in store: any KeyValueStore) async throws(StoreError) -> Int64? {
        try await store.amount(forKey: routingFeeKey(swapID), what: "the routing fee recorded for swap \(swapID)")
    }

    private func recordRoutingFee(_ update: PaymentUpdate, swapID id: String) async {
        guard case .succeeded = update.status else { return }
        do {
            try await dependencies.store.setAmount(Int64(clamping: update.feeMsat), forKey: Self.routingFeeKey(id))
        } catch {
            log("submarine swap \(id): could not record the routing fee: \(error)")
        }
    }

    private func deliverPayment(_ status: PaymentUpdate.Status, to id: String) async {
        let tip = (try? await dependencies.chain.tip()).map { UInt32(clamping: $0.height) } ?? lastTipHeight
        deliver(.payment(status, tipHeight: tip), to: id)
    }

    private func paymentEnded(_ id: String) {
        payments[id] = nil
    }
}
