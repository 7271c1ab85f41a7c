import Transport

/// What `peernode init --pubky-recovery-file` does with the identity's key, in two steps so
/// nothing is created when the first fails (docs/PUBKY.md, section 4):
///
/// 1. `currentPacket`: the identity's packet as the relays hold it now, so the user's other
///    records survive; refused when no relay answers at all (a 404 is an answer: a new
///    identity has no packet yet);
/// 2. `sign`: that packet with its `_peernode` record replaced by one naming the node key,
///    signed by the identity, later than the packet it replaces.
public enum PubkyCertification {
    /// The `_peernode` record's TTL: it changes only when the node key does.
    public static let recordTTL: UInt32 = 7_200

    public static func currentPacket(of identity: Pubky, relays: PkarrRelays) async throws(DaemonError) -> SignedPacket? {
        let lookup = await relays.lookup(identity)
        guard lookup.anyAnswered else {
            throw .pkarr("no pkarr relay could be read for \(identity) (\(lookup.summary)); a new packet would drop the "
                + "identity's other records (its homeserver), so nothing was created; try again when a relay answers")
        }
        return lookup.newest
    }

    public static func sign(node: Pubky, identity: NodeIdentity, existing: SignedPacket?) throws(DaemonError) -> SignedPacket {
        let packet = PeernodeRecords.delegationPacket(identity: identity.pubky, node: node, ttl: recordTTL, existing: existing)
        let timestamp = PkarrTime.after(existing?.timestamp)
        do {
            return try SignedPacket.sign(packet, by: identity, timestamp: timestamp)
        } catch {
            // The identity's packet plus one record no longer fits 1,000 bytes.
            throw .pkarr("the identity's packet cannot take the _peernode record: \(error)")
        }
    }
}
