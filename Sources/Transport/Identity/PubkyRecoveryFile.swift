import CArgon2
import CSodium

/// A Pubky recovery file: the identity a Pubky user already has, sealed under a passphrase.
///
/// Layout: the spec line `pubky.org/recovery` (older files: `pkarr.org/recovery`) and `\n`,
/// then a 24-byte nonce and libsodium's `crypto_secretbox_easy` box (XSalsa20-Poly1305,
/// tag first) of the 32-byte ed25519 seed. The box key is Argon2id v1.3 of the passphrase
/// with 19,456 KiB, 2 passes, 1 lane and the 8-byte salt `recovery`. libsodium's
/// `crypto_pwhash` takes only 16-byte salts, so the key comes from libargon2.
///
/// Opening the file gives the identity, never the bare seed: peernode signs with it and
/// forgets it (docs/PUBKY.md).
public enum PubkyRecoveryFile {
    public static let specLine = "pubky.org/recovery"
    public static let legacySpecLine = "pkarr.org/recovery"
    public static let nonceLength = Int(crypto_secretbox_NONCEBYTES)
    public static let boxedLength = nonceLength + Int(crypto_secretbox_MACBYTES) + NodeSeed.length
    static let salt = Array("recovery".utf8)
    static let memoryKiB: UInt32 = 19_456
    static let passes: UInt32 = 2
    static let lanes: UInt32 = 1

    /// The identity in `file`, checked with `passphrase` (UTF-8, as typed; may be empty).
    public static func open(_ file: [UInt8], passphrase: [UInt8]) throws(RecoveryFileError) -> NodeIdentity {
        requireSodium()
        let box = try boxAfterSpecLine(file)
        let key = try boxKey(passphrase: passphrase)
        let nonce = Array(box.prefix(nonceLength))
        let sealed = Array(box.dropFirst(nonceLength))
        var seed = [UInt8](repeating: 0, count: NodeSeed.length)
        defer { wipe(&seed) }
        let opened = key.withUnsafeUInt8Pointer { key in
            crypto_secretbox_open_easy(&seed, sealed, UInt64(sealed.count), nonce, key)
        }
        guard opened == 0 else { throw .wrongPassphraseOrDamaged }
        do {
            return NodeIdentity(seed: try NodeSeed(bytes: seed))
        } catch {
            preconditionFailure("a 32-byte seed was refused")
        }
    }

    /// A recovery file for `seed` (the current spec line, a fresh random nonce unless one is
    /// given): what a Pubky app writes, so tests can make files with real passphrases.
    public static func seal(_ seed: NodeSeed, passphrase: [UInt8], nonce: [UInt8]? = nil) throws(RecoveryFileError) -> [UInt8] {
        requireSodium()
        var nonceBytes = nonce ?? [UInt8](repeating: 0, count: nonceLength)
        if nonce == nil { randombytes_buf(&nonceBytes, nonceLength) }
        precondition(nonceBytes.count == nonceLength, "a secretbox nonce is 24 bytes")
        let key = try boxKey(passphrase: passphrase)
        var sealed = [UInt8](repeating: 0, count: boxedLength - nonceLength)
        key.withUnsafeUInt8Pointer { key in
            seed.secret.withUnsafeUInt8Pointer { plain in
                _ = crypto_secretbox_easy(&sealed, plain, UInt64(NodeSeed.length), nonceBytes, key)
            }
        }
        return Array((specLine + "\n").utf8) + nonceBytes + sealed
    }

    /// The bytes after the spec line, which must be exactly nonce and box.
    private static func boxAfterSpecLine(_ file: [UInt8]) throws(RecoveryFileError) -> ArraySlice<UInt8> {
        guard let newline = file.firstIndex(of: UInt8(ascii: "\n")) else { throw .notARecoveryFile }
        let line = file[..<newline]
        guard line.elementsEqual(specLine.utf8) || line.elementsEqual(legacySpecLine.utf8) else {
            throw .notARecoveryFile
        }
        let box = file[(newline + 1)...]
        guard box.count == boxedLength else { throw .wrongLength(box.count) }
        return box
    }

    /// Argon2id v1.3 of the passphrase with the fixed salt `recovery`.
    private static func boxKey(passphrase: [UInt8]) throws(RecoveryFileError) -> SecretBytes {
        var code: Int32 = 0
        let key = SecretBytes(count: Int(crypto_secretbox_KEYBYTES)) { output in
            code = passphrase.withUnsafeBytes { password in
                salt.withUnsafeBytes { salt in
                    argon2_hash(passes, memoryKiB, lanes, password.baseAddress, password.count,
                                salt.baseAddress, salt.count, output.baseAddress, output.count,
                                nil, 0, Argon2_id, UInt32(ARGON2_VERSION_13.rawValue))
                }
            }
        }
        guard code == Int32(ARGON2_OK.rawValue) else { throw .keyDerivationFailed(code) }
        return key
    }
}
