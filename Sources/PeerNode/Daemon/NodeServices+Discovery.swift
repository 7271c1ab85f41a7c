import Offers
import Transport

/// What the router ranks from besides probes (docs/PUBKY.md, section 8): each contact's
/// capability descriptor, read from the packets the discovery sweep fetched (never fetched
/// here: a payment asks no relay and no contact anything), and whether a contact without one
/// may be probed.
struct Discovery: Sendable {
    /// By node key (the key `Offers.Contact` carries).
    var published: [Pubky: CapabilityDescriptor] = [:]
    /// Why a contact has none, by node key, for its skip line.
    var reasons: [Pubky: String] = [:]
    /// False with `private_discovery=1`.
    var probeUnpublished = true
}

extension NodeServices {
    func discovery(for candidates: [Offers.Contact]) async -> Discovery {
        guard let pkarr else { return Discovery() }
        var found = Discovery(probeUnpublished: !pkarr.settings.privateDiscovery)
        let contacts = (try? await store.contacts()) ?? []
        for candidate in candidates {
            guard let contact = contacts.first(where: { $0.nodeKey == candidate.pubky }) else { continue }
            switch await pkarr.directory.descriptor(of: contact.pubky, network: config.network.rawValue) {
            case .success(let descriptor): found.published[candidate.pubky] = descriptor
            case .failure(let why): found.reasons[candidate.pubky] = why.description
            }
        }
        return found
    }
}

extension ClientCommands {
    /// The routing line that says how the candidates were found.
    static func discoveryLine(candidates: Int, fromDescriptors: Int, probed: Int, heldBack: Int = 0,
                              skippedUnpublished: Int) -> String {
        var parts = ["\(candidates) contact(s)"]
        if fromDescriptors > 0 { parts.append("\(fromDescriptors) ranked from their published descriptors (asked nothing)") }
        if probed > 0 { parts.append("\(probed) probed for offers") }
        if heldBack > 0 { parts.append("\(heldBack) not asked again yet (no answer in time, or no provider, lately)") }
        if skippedUnpublished > 0 { parts.append("\(skippedUnpublished) not probed (no descriptor; private_discovery=1)") }
        let cached = candidates - fromDescriptors - probed - heldBack - skippedUnpublished
        if cached > 0 { parts.append("\(cached) from offers already held") }
        return parts.joined(separator: ", ")
    }
}
