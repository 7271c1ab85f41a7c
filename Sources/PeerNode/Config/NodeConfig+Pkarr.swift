import Transport

extension NodeConfig {
    /// Publishing and resolving through pkarr relays (docs/PUBKY.md): off without a relay.
    public struct PkarrSettings: Sendable, Equatable {
        /// `pkarr_relay`, in the order given.
        public var relays: [PkarrRelayURL]
        /// The IP literals published as the node's addresses (`pkarr_address`, else the
        /// `listen` host when it is one contacts can dial).
        public var addresses: [String]
        /// The TTL of the published records; the packet is republished well before it runs out.
        public var ttlSeconds: UInt32
        /// Never probe a contact that publishes no capability descriptor (`private_discovery`).
        public var privateDiscovery: Bool
        /// How often every contact's packet is read again (`discovery_interval_seconds`).
        public var discoveryIntervalSeconds: Int

        public init(relays: [PkarrRelayURL] = [], addresses: [String] = [], ttlSeconds: UInt32 = 300,
                    privateDiscovery: Bool = false, discoveryIntervalSeconds: Int = 300) {
            self.relays = relays
            self.addresses = addresses
            self.ttlSeconds = ttlSeconds
            self.privateDiscovery = privateDiscovery
            self.discoveryIntervalSeconds = discoveryIntervalSeconds
        }

        public var enabled: Bool { !relays.isEmpty }
    }

    /// An address contacts can dial: an IP literal that is not the unspecified one.
    static func isPublishable(_ host: String) -> Bool {
        guard let record = DNSRecordData.address(host) else { return false }
        switch record {
        case .a(let bytes), .aaaa(let bytes): return bytes.contains { $0 != 0 }
        default: return false
        }
    }
}
