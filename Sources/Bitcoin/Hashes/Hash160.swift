/// RIPEMD-160 of SHA-256: the 20-byte hash in P2PKH, P2WPKH and P2SH outputs.
public enum Hash160 {
    public static func hash(_ data: [UInt8]) -> [UInt8] {
        RIPEMD160.hash(SHA256.hash(data))
    }
}
