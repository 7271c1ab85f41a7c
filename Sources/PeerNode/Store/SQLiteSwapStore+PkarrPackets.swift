import Transport

/// The newest verified pkarr packet known per key (`PkarrPacketBook`'s entries), kept so a
/// restarted node never goes back to an older packet a stale relay serves.
extension SQLiteSwapStore {
    public func savePkarrPacket(_ packet: SignedPacket, fetchedAt: Int64) throws(StoreError) {
        try connection.withStatement("""
            INSERT INTO pkarr_packets (pubky, packet, fetched_at) VALUES (?1, ?2, ?3)
            ON CONFLICT (pubky) DO UPDATE SET packet = excluded.packet, fetched_at = excluded.fetched_at
            """) { statement throws(StoreError) in
            try statement.bind(packet.pubky.z32, at: 1)
            try statement.bind(packet.bytes, at: 2)
            try statement.bind(fetchedAt, at: 3)
            try statement.run()
        }
    }

    /// Every stored packet, verified again: a row that no longer verifies is left out.
    public func pkarrPackets() throws(StoreError) -> [(packet: SignedPacket, fetchedAt: Int64)] {
        try connection.withStatement("SELECT packet, fetched_at FROM pkarr_packets ORDER BY pubky") { statement throws(StoreError) in
            var packets: [(packet: SignedPacket, fetchedAt: Int64)] = []
            while try statement.step() {
                if let packet = try? SignedPacket(bytes: statement.bytes(0)) {
                    packets.append((packet, statement.int64(1)))
                }
            }
            return packets
        }
    }
}
