/** The binary test every file reader shares. */

/** How much of a file is sniffed for NUL bytes. */
export const BINARY_SNIFF_BYTES = 8192;

/** True when the sample holds a NUL byte (the usual binary test of git and ripgrep). */
export function looksBinary(sample: Uint8Array): boolean {
    return sample.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}
