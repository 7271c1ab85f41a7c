import Offers
import Transport

extension ControlDispatcher {
    /// Probes every contact (and each `extra_provider`) for its offer; lists the usable
    /// offers and, for every other contact, why it was skipped.
    func offers(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let refresh = try args.bool("refresh", default: false)
        let candidates: [Offers.Contact]
        do {
            candidates = try await routeCandidates()
        } catch {
            throw .failed(error.description)
        }
        let report = await services.router.probe(candidates, refresh: refresh)
        let offers = report.offers.sorted { $0.offer.body.baseFeeSat + $0.offer.body.onchainFeeSat
            < $1.offer.body.baseFeeSat + $1.offer.body.onchainFeeSat }
        return .object([
            "offers": .array(offers.map { provider in
                let offer = provider.offer.body
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
                ])
            }),
            "skipped": .array(report.skipped.map { skipped in
                .object(["contact": .string(skipped.contact.name), "pubky": .string(skipped.contact.pubky.z32),
                         "reason": .string(skipped.reason.description)])
            }),
            "probed": .integer(report.probed),
        ])
    }

    /// Saved contacts, then the config's extra providers not already among them.
    func routeCandidates() async throws(StoreError) -> [Offers.Contact] {
        var list = try await services.store.contacts().map {
            Offers.Contact(pubky: $0.pubky, host: $0.host, port: $0.port, name: $0.name)
        }
        for extra in services.config.extraProviders where !list.contains(where: { $0.pubky == extra.pubky }) {
            list.append(Offers.Contact(pubky: extra.pubky, host: extra.host, port: UInt16(extra.port),
                                       name: "extra_provider \(extra.pubky.z32.prefix(8))"))
        }
        return list
    }
}
