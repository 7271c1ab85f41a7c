import COpenSSL

/// The OpenSSL settings every accepted connection of one TLS server shares: its identity
/// (key and certificate) and TLS 1.2 as the lowest version, as LND's REST server has.
///
/// `@unchecked Sendable`: the SSL_CTX is configured in `init` and only read afterwards;
/// OpenSSL allows `SSL_new` on one context from many threads once it is set up.
public final class TLSServerContext: @unchecked Sendable {
    let context: OpaquePointer
    public let identity: TLSIdentity

    public init(identity: TLSIdentity) throws(TLSError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw .setupFailed(reason: TLSSession.openSSLErrors()) }
        guard peernode_ssl_ctx_set_min_proto_version(context, TLSSession.minimumVersion) == 1,
              SSL_CTX_use_certificate(context, identity.certificate) == 1,
              SSL_CTX_use_PrivateKey(context, identity.key) == 1,
              SSL_CTX_check_private_key(context) == 1 else {
            let reason = TLSSession.openSSLErrors()
            SSL_CTX_free(context)
            throw .setupFailed(reason: reason)
        }
        self.context = context
        self.identity = identity
    }

    deinit { SSL_CTX_free(context) }
}
