/*
 * libFuzzer harness: header_scan (header_scan.c) on the input fed whole and
 * fed in two parts at every split point derived from the input's first
 * byte: the verdicts must agree, and "done" must mean the input holds a
 * blank line after a request line.
 */
#include "fuzz.h"
#include "header_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct header_scan whole, parts;
	size_t split = size ? data[0] % (size + 1) : 0;

	header_scan_reset(&whole);
	header_scan_feed(&whole, (const char *)data, size);
	header_scan_reset(&parts);
	header_scan_feed(&parts, (const char *)data, split);
	header_scan_feed(&parts, (const char *)data + split, size - split);
	FUZZ_CHECK(whole.folded == parts.folded);
	FUZZ_CHECK(header_scan_done(&whole) == header_scan_done(&parts));
	if (header_scan_done(&whole))
		FUZZ_CHECK(memchr(data, '\n', size) != NULL);
	return 0;
}
