/* The fuzz targets' replay driver: the main() that `make check` links each
 * target's LLVMFuzzerTestOneInput with, against the unit tests' ASan + UBSan
 * objects (gcc), so that replaying the corpus (tests/e2e/fuzz_replay.sh) needs
 * no second compile of the library; `make fuzz` links the targets with
 * libFuzzer (clang) instead. Like libFuzzer given files, it runs each file named
 * on the command line once: its bytes in a buffer of exactly their size (a read
 * past the end is an ASan report), and an input the target writes over is a
 * finding. Prints how many inputs ran; exits 1 when a file cannot be read.
 * SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads PATH whole into *DATA (malloc'd, exactly *SIZE bytes); -1 when it cannot. */
static int replay_read(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n = -1;
	if (f && fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
		if (f)
			fclose(f);
		return -1;
	}
	*data = malloc(n ? (size_t)n : 1); /* exactly the input's bytes */
	int bad = !*data || fread(*data, 1, (size_t)n, f) != (size_t)n;
	fclose(f);
	if (bad) {
		free(*data);
		return -1;
	}
	*size = (size_t)n;
	return 0;
}

int main(int argc, char **argv)
{
	int ran = 0;
	for (int i = 1; i < argc; i++) {
		uint8_t *data, *copy;
		size_t size;
		if (replay_read(argv[i], &data, &size) != 0) {
			fprintf(stderr, "%s: cannot read input %s: check that it exists and is readable\n", argv[0],
				argv[i]);
			return 1;
		}
		copy = malloc(size ? size : 1);
		if (!copy) {
			fprintf(stderr, "%s: out of memory reading %s\n", argv[0], argv[i]);
			return 1;
		}
		memcpy(copy, data, size);
		LLVMFuzzerTestOneInput(data, size);
		if (memcmp(copy, data, size) != 0) {
			fprintf(stderr, "%s: input %s: the target wrote over its input (const data)\n", argv[0], argv[i]);
			abort();
		}
		free(copy);
		free(data);
		ran++;
	}
	fprintf(stderr, "%s: %d inputs replayed\n", argv[0], ran);
	return 0;
}
