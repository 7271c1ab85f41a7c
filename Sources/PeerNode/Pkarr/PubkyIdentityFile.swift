import Transport

/// `<datadir>/pubky_identity.pkarr`: the identity's packet that `peernode init
/// --pubky-recovery-file` signed, naming this node's key (docs/PUBKY.md, section 4). It holds
/// no secret (anyone may read and republish a signed packet); the daemon republishes it and
/// reports the identity as the node's pubky.
public enum PubkyIdentityFile {
    public static let fileName = "pubky_identity.pkarr"

    public static func path(datadir: String) -> String { NodeConfig.path(datadir, fileName) }

    public static func write(_ packet: SignedPacket, datadir: String) throws(DaemonError) {
        do {
            try PosixFile.replace(path(datadir: datadir), bytes: packet.bytes, mode: 0o600)
        } catch {
            throw .file(error.description)
        }
    }

    /// The packet, checked: a valid signed packet whose `_peernode` record names `node`.
    /// Nil when the node has no Pubky identity (the file is absent).
    public static func load(datadir: String, node: Pubky) throws(DaemonError) -> SignedPacket? {
        let path = path(datadir: datadir)
        guard PosixFile.kind(of: path) != nil else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try PosixFile.read(path, limit: 32 + SignedPacket.maxPayloadLength)
        } catch {
            throw .pubkyIdentity("\(path) cannot be read: \(error.reason)")
        }
        let packet: SignedPacket
        do {
            packet = try SignedPacket(bytes: bytes)
        } catch {
            throw .pubkyIdentity("\(path) is not a valid signed packet (\(error)); run `peernode init --pubky-recovery-file` "
                + "on a new data directory, or remove the file to run under the node's own key")
        }
        guard PeernodeRecords.delegate(in: packet) == node else {
            throw .pubkyIdentity("\(path) is signed by \(packet.pubky) but does not name this node's key \(node)")
        }
        return packet
    }
}
