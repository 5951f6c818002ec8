import {
    type ReadRegularFileOptions,
    type RegularFileRead,
    readRegularFileSync,
} from "./read-regular-file";

export type CappedRead = RegularFileRead;

/**
 * Reads at most `cap` bytes from the start of a regular file, so a huge file
 * is never loaded whole and a FIFO never blocks (see `readRegularFileSync`,
 * which also takes the "must resolve inside this root" rule).
 * Decoding is the caller's: each decides how a cut character is handled.
 */
export function readFileCapped(
    path: string,
    cap: number,
    options: Omit<ReadRegularFileOptions, "cap"> = {}
): CappedRead {
    return readRegularFileSync(path, { ...options, cap });
}
