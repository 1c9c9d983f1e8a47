#include "arbiter/webhook/tls.h"

#include <array>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>

#include <openssl/bio.h>
#include <openssl/buffer.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace arbiter::webhook {
namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Free>;
using Cert = std::unique_ptr<X509, Free>;
using Bio = std::unique_ptr<BIO, Free>;
using Extension = std::unique_ptr<X509_EXTENSION, Free>;

Status OpenSslError(const std::string& what) {
  return InternalError("webhook certificate: " + what + " failed (OpenSSL)");
}

Key NewKey() { return Key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")); }

std::string Drain(BIO* bio) {
  BUF_MEM* mem = nullptr;
  BIO_ctrl(bio, BIO_C_GET_BUF_MEM_PTR, 0, reinterpret_cast<void*>(&mem));
  return mem == nullptr ? std::string() : std::string(mem->data, mem->length);
}

Status AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  Extension ext(X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value.c_str()));
  if (ext == nullptr || X509_add_ext(cert, ext.get(), -1) != 1) {
    return OpenSslError("extension " + value);
  }
  return Status::Ok();
}

// A certificate for `key`, named `common_name`, signed by `issuer_key` as `issuer` (itself when
// null), with the extensions given as nid -> OpenSSL's configuration syntax.
StatusOr<Cert> NewCert(EVP_PKEY* key, const std::string& common_name, X509* issuer,
                       EVP_PKEY* issuer_key, Clock::WallTime now, std::chrono::seconds validity,
                       const std::vector<std::pair<int, std::string>>& extensions) {
  Cert cert(X509_new());
  if (cert == nullptr || X509_set_version(cert.get(), 2) != 1) return OpenSslError("X509_new");
  std::array<unsigned char, 8> serial{};
  if (RAND_bytes(serial.data(), serial.size()) != 1) return OpenSslError("RAND_bytes");
  std::uint64_t number = 0;
  for (unsigned char b : serial) number = (number << 8U) | b;
  number >>= 1U;  // positive
  ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert.get()), number);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch());
  const auto from = static_cast<time_t>(seconds.count() - 60);  // clock skew
  const auto until = static_cast<time_t>(seconds.count() + validity.count());
  if (ASN1_TIME_set(X509_getm_notBefore(cert.get()), from) == nullptr ||
      ASN1_TIME_set(X509_getm_notAfter(cert.get()), until) == nullptr) {
    return OpenSslError("validity");
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  if (X509_set_issuer_name(cert.get(), X509_get_subject_name(signer)) != 1 ||
      X509_set_pubkey(cert.get(), key) != 1) {
    return OpenSslError("names");
  }
  for (const auto& [nid, value] : extensions) {
    ARBITER_RETURN_IF_ERROR(AddExtension(cert.get(), signer, nid, value));
  }
  if (X509_sign(cert.get(), issuer_key, EVP_sha256()) <= 0) return OpenSslError("X509_sign");
  return cert;
}

std::string CertPem(X509* cert) {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  return Drain(bio.get());
}

std::string KeyPem(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  return Drain(bio.get());
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

StatusOr<ServingCertificate> MakeServingCertificate(const std::vector<std::string>& dns_names,
                                                    const std::vector<std::string>& ip_addresses,
                                                    Clock::WallTime now,
                                                    std::chrono::seconds validity) {
  Key ca_key = NewKey();
  Key key = NewKey();
  if (ca_key == nullptr || key == nullptr) return OpenSslError("key generation");
  ARBITER_ASSIGN_OR_RETURN(Cert ca, NewCert(ca_key.get(), "arbiter-controller-webhook-ca", nullptr,
                                            ca_key.get(), now, validity,
                                            {{NID_basic_constraints, "critical,CA:TRUE"},
                                             {NID_key_usage, "critical,keyCertSign,cRLSign"},
                                             {NID_subject_key_identifier, "hash"}}));
  std::string names;
  for (const std::string& dns : dns_names) names += (names.empty() ? "DNS:" : ",DNS:") + dns;
  for (const std::string& ip : ip_addresses) names += (names.empty() ? "IP:" : ",IP:") + ip;
  if (names.empty()) return InvalidArgumentError("webhook certificate: no name or address");
  ARBITER_ASSIGN_OR_RETURN(
      Cert serving, NewCert(key.get(), dns_names.empty() ? ip_addresses.front() : dns_names.front(),
                            ca.get(), ca_key.get(), now, validity,
                            {{NID_basic_constraints, "critical,CA:FALSE"},
                             {NID_key_usage, "critical,digitalSignature"},
                             {NID_ext_key_usage, "serverAuth"},
                             {NID_subject_alt_name, names},
                             {NID_authority_key_identifier, "keyid"}}));
  return ServingCertificate{CertPem(serving.get()), KeyPem(key.get()), CertPem(ca.get())};
}

StatusOr<ServingCertificate> ReadServingCertificate(const std::string& dir) {
  ServingCertificate out;
  ARBITER_ASSIGN_OR_RETURN(out.cert_pem, ReadFile(dir + "/tls.crt"));
  ARBITER_ASSIGN_OR_RETURN(out.key_pem, ReadFile(dir + "/tls.key"));
  StatusOr<std::string> ca = ReadFile(dir + "/ca.crt");
  out.ca_pem = ca.ok() ? *ca : out.cert_pem;
  return out;
}

}  // namespace arbiter::webhook
