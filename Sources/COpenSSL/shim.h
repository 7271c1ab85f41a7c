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
