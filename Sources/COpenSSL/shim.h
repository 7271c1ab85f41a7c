// OpenSSL 3 (libssl, libcrypto): TLS to LND's REST port, certificates for the hub's.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/evp.h>
#include <openssl/bio.h>

// Function-like macros Swift cannot import, as inline functions.
static inline long peernode_ssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long peernode_ssl_ctx_get_min_proto_version(SSL_CTX *ctx) {
    return SSL_CTX_get_min_proto_version(ctx);
}
static inline long peernode_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline long peernode_bio_pending(BIO *bio) {
    return (long)BIO_ctrl_pending(bio);
}
static inline void peernode_bio_set_mem_eof_return(BIO *bio, int value) {
    BIO_set_mem_eof_return(bio, value);
}
// A fresh ECDSA key on P-256 (EVP_EC_gen is a macro over a variadic function).
static inline EVP_PKEY *peernode_ec_p256_key(void) {
    return EVP_EC_gen("P-256");
}
// Adds one X.509v3 extension given in OpenSSL's config syntax ("IP:127.0.0.1,DNS:localhost"),
// with the certificate as its own issuer (a self-signed certificate's key identifiers).
static inline int peernode_x509_add_extension(X509 *cert, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, NULL, NULL, 0);
    X509_EXTENSION *extension = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (extension == NULL) return 0;
    int ok = X509_add_ext(cert, extension, -1);
    X509_EXTENSION_free(extension);
    return ok;
}
