// CPNGShim: libpng behind a setjmp-free C interface, so Swift never sees libpng's longjmp.
//
// libpng reports errors by calling an error callback that must not return (it longjmps back to a
// setjmp point). Swift cannot host setjmp, so every libpng call lives here: each function sets its
// own setjmp point, turns a libpng error into a status code plus a copied message, and releases
// everything it allocated on every path.
#ifndef CPNGSHIM_H
#define CPNGSHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Success.
#define CPNGSHIM_OK 0
/// The data does not start with the 8-byte PNG signature.
#define CPNGSHIM_NOT_PNG 1
/// libpng reported an error; the message buffer holds its text.
#define CPNGSHIM_LIBRARY_ERROR 2
/// The image is wider or taller than the caller's limit; width and height are still reported.
#define CPNGSHIM_TOO_LARGE 3
/// An argument is out of range (null pointer, zero size, unsupported channel count).
#define CPNGSHIM_INVALID_ARGUMENT 4

/// Encodes 8-bit interleaved pixels (1 channel: gray, 3 channels: RGB) as a PNG in memory.
///
/// On success `*outBytes` points to `*outCount` bytes allocated with malloc; release them with
/// `cpngshim_free`. On failure `*outBytes` is NULL and `message` (if not NULL) holds the reason.
int cpngshim_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, int compressionLevel,
                    uint8_t **outBytes, size_t *outCount, char *message, size_t messageCapacity);

/// Decodes a PNG from memory into 8-bit interleaved pixels.
///
/// Palette and low-bit-depth images are expanded to 8 bits, 16-bit samples are scaled to 8 bits,
/// interlacing is undone and alpha channels are dropped, so `*outChannels` is 1 (gray) or 3 (RGB)
/// (2 or 4 only if libpng kept an alpha channel). With `headerOnly` non-zero only the header is read
/// and `*outPixels` stays NULL. Images with a side above `maxSide` are rejected before allocating.
/// On success `*outPixels` (width × height × channels bytes) must be released with `cpngshim_free`.
int cpngshim_decode(const uint8_t *data, size_t count, uint32_t maxSide, int headerOnly, uint8_t **outPixels,
                    uint32_t *outWidth, uint32_t *outHeight, int *outChannels, char *message,
                    size_t messageCapacity);

/// Releases a buffer returned by this shim.
void cpngshim_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
