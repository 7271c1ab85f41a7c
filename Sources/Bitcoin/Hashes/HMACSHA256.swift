import CSodium

/// HMAC-SHA256 (RFC 2104 over SHA-256), computed by libsodium. Macaroons chain their
/// signatures with it (LND's credentials).
public enum HMACSHA256 {
    public static let macSize = 32

    public static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        requireSodium()
        var state = crypto_auth_hmacsha256_state()
        var mac = [UInt8](repeating: 0, count: macSize)
        _ = crypto_auth_hmacsha256_init(&state, key, key.count)
        _ = crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        _ = crypto_auth_hmacsha256_final(&state, &mac)
        return mac
    }
}
