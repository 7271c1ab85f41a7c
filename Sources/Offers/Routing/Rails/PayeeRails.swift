/// What the contact takes, from its `Endpoints` reply: an on-chain address on this
/// network, Lightning (a `lightning` entry: it answers `InvoiceRequest`), or both.
public struct PayeeRails: Sendable, Hashable {
    public let onchain: Bool
    public let lightning: Bool

    public init(onchain: Bool, lightning: Bool) {
        self.onchain = onchain
        self.lightning = lightning
    }

    public static let onchainOnly = PayeeRails(onchain: true, lightning: false)
    public static let lightningOnly = PayeeRails(onchain: false, lightning: true)
    public static let both = PayeeRails(onchain: true, lightning: true)

    /// Reads an `Endpoints` reply for `network`: a `lightning` entry counts when its address
    /// is a pubky; an `onchain` entry when `isPayableAddress` accepts its address (the shell
    /// parses it for the network and checks a claim can pay its type).
    public init(endpoints: [Endpoint], network: String, isPayableAddress: (String) -> Bool) {
        let here = endpoints.filter { $0.network == network }
        onchain = here.contains { $0.type == Endpoint.onchainType && isPayableAddress($0.address) }
        lightning = here.contains { $0.lightningPubky != nil }
    }

    public func takes(_ rail: PaymentRail) -> Bool { rail == .onchain ? onchain : lightning }

    /// "only on-chain", "only Lightning", "on-chain and Lightning", "neither on-chain nor Lightning".
    public var description: String {
        switch (onchain, lightning) {
        case (true, true): return "on-chain and Lightning"
        case (true, false): return "only on-chain"
        case (false, true): return "only Lightning"
        case (false, false): return "neither on-chain nor Lightning"
        }
    }
}
