import Bitcoin
import Transport

/// A message signed by its provider: ed25519 over the canonical JSON of the whole message
/// without its `signature` field (`type` and `request_id` included, so a signature cannot
/// be moved to another message type), hex in `signature`.
///
/// A received message keeps the exact object it arrived as, unknown fields included: the
/// signature covers what the provider sent, and the client keeps those bytes as proof of
/// what was promised, even when it understands only part of them.
public struct Signed<Body: SwapMessageBody>: Sendable, Equatable {
    public static var signatureLength: Int { 64 }

    public let body: Body
    /// The 64-byte ed25519 signature.
    public let signature: [UInt8]
    /// The canonical JSON the signature covers (the message minus `signature`).
    public let signedBytes: [UInt8]
    private let unsignedJSON: JSONValue

    /// Signs `body` as `identity` (the provider).
    public init(signing body: Body, with identity: NodeIdentity) {
        self.body = body
        unsignedJSON = body.json
        signedBytes = unsignedJSON.canonicalBytes
        signature = identity.sign(signedBytes)
    }

    /// Decodes a received message. The signature is only read here; `verify(by:)` checks it.
    public init(json value: JSONValue) throws(OffersError) {
        guard var members = value.objectValue else { throw .notAnObject }
        signature = try FieldReader(members).hex("signature", byteCount: Self.signatureLength)
        members["signature"] = nil
        unsignedJSON = .object(members)
        body = try Body(json: unsignedJSON)
        signedBytes = unsignedJSON.canonicalBytes
    }

    public init(bytes: [UInt8]) throws(OffersError) {
        try self.init(json: try SwapCodec.parse(bytes))
    }

    /// Throws `invalidSignature` unless `signer` made the signature over `signedBytes`.
    public func verify(by signer: Pubky) throws(OffersError) {
        guard signer.isValidSignature(signature, for: signedBytes) else { throw .invalidSignature }
    }

    public func isSigned(by signer: Pubky) -> Bool {
        signer.isValidSignature(signature, for: signedBytes)
    }

    /// The message as sent: the signed object plus `signature`.
    public var json: JSONValue {
        guard case .object(var members) = unsignedJSON else { return unsignedJSON }
        members["signature"] = .string(signature.hex)
        return .object(members)
    }

    /// The canonical wire bytes.
    public var encoded: [UInt8] { json.canonicalBytes }
}
