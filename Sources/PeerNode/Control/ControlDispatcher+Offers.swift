import Offers
import Transport

extension ControlDispatcher {
    /// Probes every contact (and each `extra_provider`) for its offer; lists the usable
    /// offers and, for every other contact, why it was skipped.
    func offers(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let refresh = try args.bool("refresh", default: false)
        let candidates: [Offers.Contact]
        do {
            candidates = try await services.routeCandidates()
        } catch {
            throw .failed(error.description)
        }
        let discovery = await services.discovery(for: candidates)
        let report = await services.router.probe(candidates, refresh: refresh, published: discovery.published,
                                                 probeUnpublished: discovery.probeUnpublished,
                                                 unpublishedReasons: discovery.reasons)
        let offers = report.offers.sorted { $0.terms.baseFeeSat + $0.terms.onchainFeeSat
            < $1.terms.baseFeeSat + $1.terms.onchainFeeSat }
        return .object([
            "offers": .array(offers.map { provider in
                let offer = provider.terms
                return .object([
                    "contact": .string(provider.contact.name), "pubky": .string(provider.contact.pubky.z32),
                    "address": .string("\(provider.contact.host):\(provider.contact.port)"),
                    "offer_id": .string(offer.offerID), "min_amount_sat": .integer(offer.minAmountSat),
                    "max_amount_sat": .integer(offer.maxAmountSat), "base_fee_sat": .integer(offer.baseFeeSat),
                    "fee_ppm": .integer(offer.feePPM), "onchain_fee_sat": .integer(offer.onchainFeeSat),
                    "fee_rate_sat_vb": .integer(offer.feeRateSatPerVByte),
                    "required_confirmations": .integer(offer.requiredConfirmations),
                    "htlc_timeout_blocks": .integer(offer.htlcTimeoutBlocks),
                    "valid_until_unix": .integer(offer.validUntilUnix),
                    // How it was found: its signed offer, or its published descriptor (asked nothing).
                    "source": .string(provider.fromDescriptor ? "descriptor" : "offer"),
                ])
            }),
            "skipped": .array(report.skipped.map { skipped in
                .object(["contact": .string(skipped.contact.name), "pubky": .string(skipped.contact.pubky.z32),
                         "reason": .string(ClientCommands.describe(skipped.reason))])
            }),
            "probed": .integer(report.probed),
            "from_descriptors": .integer(report.fromDescriptors),
        ])
    }
}
