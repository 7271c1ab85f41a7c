// libargon2: Argon2id with an 8-byte salt, which a Pubky recovery file's key needs and
// libsodium's crypto_pwhash (16-byte salts only) cannot derive.
#include <argon2.h>
