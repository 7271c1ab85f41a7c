import CSodium

/// HMAC-SHA512 (RFC 2104 over SHA-512), computed by libsodium. BIP32 derives keys with it.
public enum HMACSHA512 {
    public static let macSize = 64

    public static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        requireSodium()
        var state = crypto_auth_hmacsha512_state()
        var mac = [UInt8](repeating: 0, count: macSize)
        _ = crypto_auth_hmacsha512_init(&state, key, key.count)
        _ = crypto_auth_hmacsha512_update(&state, message, UInt64(message.count))
        _ = crypto_auth_hmacsha512_final(&state, &mac)
        return mac
    }
}
