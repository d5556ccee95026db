/* The declarations generated sources need from <string.h>, for compiling them for other
 * architectures with clang -ffreestanding (no C library headers for those targets here). */
#include <stddef.h>
void *memcpy(void *restrict to, const void *restrict from, size_t n);
void *memset(void *to, int byte, size_t n);
