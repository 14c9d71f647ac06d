#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H
/* libFuzzer's entry for programs that keep their own main (LLVM ≥ 11, linked by -sanitize=fuzzer). */
#include <stddef.h>
#include <stdint.h>

typedef int (*FuzzTestOneInput)(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, FuzzTestOneInput callback);
#endif
