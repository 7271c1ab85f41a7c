/// BIP340 tagged hashes: SHA256(SHA256(tag) || SHA256(tag) || data), so that a hash made
/// for one purpose can never be mistaken for one made for another.
public enum TaggedHash {
    public static func hash(tag: String, _ data: [UInt8]) -> [UInt8] {
        let tagHash = SHA256.hash(Array(tag.utf8))
        var hasher = SHA256Hasher()
        hasher.update(tagHash)
        hasher.update(tagHash)
        hasher.update(data)
        return hasher.finalize()
    }
}
