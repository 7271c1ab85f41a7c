import Bitcoin
import HTLC
import Offers
import Transport

/// Answers a contact's `SwapListRequest` from the store: the `onchain_to_ln` swaps this node
/// holds with the asking pubky (the one the Noise handshake proved), whose lock may still be
/// on chain for the asker to refund or claim (docs/RECOVERY.md, section 3):
///
/// - as the provider: every swap but `claimed` and `claim_lost` (the lock is spent, 6 deep).
///   Our final `abandoned`, `lock_mismatch` and `released` stay listed: the client's lock may
///   still wait for its refund, which the client cannot sign without the contract;
/// - as the client: swaps that may hold a lock and are not final, so a provider that paid
///   and lost its database can still claim what it paid for.
///
/// What is sent is what the asker was sent, or sent itself: the signed accept, the quote
/// (signed again by this node as the provider: the same signature over the same bytes) and
/// the client's request. No key, no preimage, nothing about other peers.
public struct SwapListDesk: Sendable {
    /// The newest swaps with one peer that are considered: an answer reads no more than these.
    public static let maximumSwapsPerPeer = 1_000

    let store: any SwapStore
    let identity: NodeIdentity
    let network: Network

    public init(store: any SwapStore, identity: NodeIdentity, network: Network) {
        self.store = store
        self.identity = identity
        self.network = network
    }

    public func answer(_ request: SwapListRequest, from peer: Pubky) async -> [UInt8] {
        guard request.direction == .onchainToLightning else {
            return Reject(requestID: request.requestID, code: .invalidRequest,
                          reason: "only onchain_to_ln swaps are listed: a reverse swap's lock is recovered from the seed")
                .encoded
        }
        let listed: [SwapListEntry]
        do {
            listed = try await entries(with: peer)
        } catch {
            return Reject(requestID: request.requestID, code: .internal, reason: "this node cannot read its swaps now").encoded
        }
        var page: [SwapListEntry] = []
        var size = 512
        for entry in listed.dropFirst(request.offset) {
            let bytes = entry.json.canonicalBytes.count + 1
            guard page.count < SwapList.maximumEntries, size + bytes <= SwapList.maximumEncodedBytes else { break }
            page.append(entry)
            size += bytes
        }
        return SwapList(requestID: request.requestID, offset: request.offset, total: listed.count, swaps: page).encoded
    }

    /// Every listed swap with `peer`, newest first.
    func entries(with peer: Pubky) async throws(StoreError) -> [SwapListEntry] {
        var entries: [SwapListEntry] = []
        for record in try await store.swaps(withPeer: peer.z32, limit: Self.maximumSwapsPerPeer) {
            if let entry = try await entry(for: record) { entries.append(entry) }
        }
        return entries
    }

    private func entry(for record: SwapRecord) async throws(StoreError) -> SwapListEntry? {
        switch record.role {
        case .provider:
            guard SubmarineProviderRecord.isSubmarine(record),
                  let swap = try? SubmarineProviderRecord(record: record, network: network),
                  let last = try await store.lastEvent(of: record.id) else { return nil }
            let spent: Set<String> = [SubmarineProviderState.Kind.claimed.rawValue, SubmarineProviderState.Kind.claimLost.rawValue]
            guard !spent.contains(last.kind) else { return nil }
            return SwapListEntry(role: .provider, accept: swap.accept, quote: Signed(signing: swap.quote, with: identity),
                                 request: swap.request)
        case .client:
            guard SubmarineClientRecord.isSubmarine(record.contract),
                  let terms = try? SubmarineClientRecord(json: record.contract) else { return nil }
            let events = try await store.events(of: record.id)
            guard let last = events.last, let phase = SubmarineClientPhase(rawValue: last.kind), phase.lockMayExist,
                  !phase.isFinal,
                  let stored = events.last(where: { $0.kind == SubmarineClientPhase.accepted.rawValue })?.data["accept"],
                  let accept = try? Signed<SubmarineSwapAccept>(json: stored) else { return nil }
            return SwapListEntry(role: .client, accept: accept, quote: terms.quote, request: terms.request)
        }
    }
}
