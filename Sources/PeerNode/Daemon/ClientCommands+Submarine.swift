import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

extension ClientCommands {
    /// How long this node's own swap-in invoice stays payable: the provider pays only once
    /// the lock confirms, so it must outlive a slow block or two.
    static let swapInInvoiceExpirySeconds: UInt64 = 86_400

    // MARK: swap-in

    /// `swap-in <sats>`: savings to the spending balance. This node's Lightning node makes
    /// an invoice for X, and the cheapest contact that swaps on-chain to Lightning pays it
    /// against a lock funded from savings.
    func swapIn(amountSat: Int64, options: SwapOptions, progress: CommandProgress) async throws(ControlError) -> JSONValue {
        _ = try submarineEngine()
        let created: CreatedInvoice
        do {
            created = try await services.lightning.addInvoice(amountMsat: UInt64(amountSat) * 1_000, memo: "peernode swap-in",
                                                              expirySeconds: Self.swapInInvoiceExpirySeconds, cltvExpiry: 0)
        } catch {
            throw .backend("this node's Lightning node made no invoice: \(error); nothing was paid")
        }
        progress.stage("invoice", "this node's invoice for \(Self.grouped(amountSat)) sat (payment hash \(created.paymentHash.hex))")
        var result = try await submarineSwap(invoice: created.paymentRequest, amountSat: amountSat, ownInvoice: true,
                                             contractType: options.contractType, progress: progress)
        result["own_invoice"] = .bool(true)
        return .object(result)
    }

    // MARK: pay, to a contact that takes Lightning

    /// `pay <contact> <sats>` when the contact takes no on-chain payment but Lightning: its
    /// signed invoice for X (asked through `ContactRequestGate`, checked by
    /// `ContactInvoiceFetcher`), paid by the cheapest contact that swaps on-chain to
    /// Lightning against a lock funded from savings.
    func payLightningContact(_ contact: SavedContact, invoicePubky: Pubky, amountSat: Int64, options: SwapOptions,
                             progress: CommandProgress) async throws(ControlError) -> JSONValue {
        _ = try submarineEngine()
        progress.stage("invoice", "asking \(contact.name) for a signed invoice of \(Self.grouped(amountSat)) sat")
        let fetcher = ContactInvoiceFetcher(dialer: services.dialer, network: services.config.network,
                                            timeoutMilliseconds: engine.configuration.requestTimeoutMilliseconds,
                                            nowUnix: { [clock = services.clock] in clock.nowUnix })
        let host = contact.host, port = Int(contact.port)
        let fetched = try await services.contactRequests.run(to: invoicePubky) { () async throws(ControlError) in
            do {
                return try await fetcher.fetch(from: invoicePubky, host: host, port: port, amountMsat: amountSat * 1_000,
                                               description: "peernode pay")
            } catch {
                throw ControlError(code: "not_paid", message: "\(contact.name) gave no invoice that can be paid: \(error); "
                                   + "nothing was paid")
            }
        }
        progress.stage("invoice", "\(contact.name) signed an invoice for \(Self.grouped(amountSat)) sat "
                       + "(payment hash \(fetched.invoice.paymentHash.hex))")
        var result = try await submarineSwap(invoice: fetched.bolt11, amountSat: amountSat, ownInvoice: false,
                                             contractType: options.contractType, progress: progress)
        result["contact"] = .string(contact.name)
        result["contact_pubky"] = .string(contact.pubky.z32)
        return .object(result)
    }

    // MARK: the submarine path

    /// Probes the contacts, takes the cheapest `onchain_to_ln` offer for X
    /// (`SubmarineRouteChoice`) and has the invoice paid through it. Returns once the
    /// invoice is paid, with the preimage (the proof of payment), the lock total and the
    /// lock's fee; throws with where the funds are otherwise.
    func submarineSwap(invoice: String, amountSat: Int64, ownInvoice: Bool, contractType: ContractType?,
                       progress: CommandProgress) async throws(ControlError) -> [String: JSONValue] {
        let submarine = try submarineEngine()
        let candidates = try await routeCandidates()
        // Cached offers first. A provider's onchain_to_ln maximum follows its Lightning
        // balance and it forgets its offers when it restarts, so when the cache names no
        // provider for X, or the chosen one no longer knows its offer (`not_found`, before
        // anything is quoted or locked), every contact is asked again, once.
        var refreshed = false
        while true {
            progress.stage("routing", "asking \(candidates.count) contact(s) for on-chain to Lightning offers")
            let probed = await services.router.probe(candidates, refresh: refreshed)
            // The onchain_to_ln lists: a provider running submarine swaps only (it needs no
            // on-chain coins for them) has no reverse offer, and is a candidate here.
            for skip in probed.submarineSkipped {
                progress.stage("routing", "skipped \(skip.contact.name): \(Self.describe(skip.reason))")
            }
            let route = SubmarineRouteChoice(amountSat: amountSat, offers: probed.submarineOffers)
            for skip in route.skipped { progress.stage("routing", "skipped \(skip.contact.name): \(skip.reason)") }
            guard let choice = route.choice else {
                if !refreshed {
                    refreshed = true
                    progress.stage("routing", "no cached offer swaps \(Self.grouped(amountSat)) sat on-chain to Lightning; "
                                   + "asking the contacts again")
                    continue
                }
                throw ControlError(code: "no_route", message: "no contact swaps \(Self.grouped(amountSat)) sat on-chain to Lightning "
                                   + "(\(candidates.count) asked); nothing was paid")
            }
            let offered = OfferFeature.contractTypes(in: choice.provider.offer.body.features)
            let type = contractType ?? offered.first ?? .taprootBoltz
            progress.stage("route", "savings -> Lightning through \(choice.provider.contact.name) "
                           + "(\(choice.provider.contact.pubky.z32)), \(type.rawValue) contract: lock "
                           + "\(Self.grouped(choice.lockTotalSat)) sat (fees \(Self.grouped(choice.feesSat)) sat) plus the lock's "
                           + "own fee; the provider pays once the lock has \(choice.terms.requiredConfirmations) confirmation(s)")
            let report: SubmarineClientReport
            do {
                report = try await submarine.pay(invoice: invoice, via: choice.provider, contractType: type,
                                                 ownInvoice: ownInvoice) { progress.bind($0) }
            } catch .rejected(.notFound, let reason) where !refreshed {
                refreshed = true
                progress.stage("routing", "\(choice.provider.contact.name) no longer knows its offer (\(reason)); "
                               + "asking the contacts again")
                continue
            } catch {
                throw Self.controlError(error)
            }
            return Self.submarineResult(report, choice: choice, type: type, route: route)
        }
    }

    private static func submarineResult(_ report: SubmarineClientReport, choice: SubmarineRouteChoice.Candidate,
                                        type: ContractType, route: SubmarineRouteChoice) -> [String: JSONValue] {
        var result = report.json
        result["provider"] = RoutePlan.providerJSON(choice.provider.contact, contractType: type)
        result["alternatives"] = .array(route.ranked.dropFirst().map { candidate in
            .object(["contact": .string(candidate.provider.contact.name), "pubky": .string(candidate.provider.contact.pubky.z32),
                     "fees_total_sat": .integer(candidate.feesSat)])
        })
        return result
    }

    func submarineEngine() throws(ControlError) -> SubmarineClientEngine {
        guard let submarine else {
            throw .notAvailable("submarine swaps (savings -> Lightning) are not wired into this daemon")
        }
        return submarine
    }
}
