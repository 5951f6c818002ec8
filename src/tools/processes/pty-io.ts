/**
 * Programs in a pseudo-terminal. The pty library is an optional native
 * module this build does not load, so a tty command runs with pipes (the
 * caller says so to the model).
 */
import type { ProcessIo, ProcessIoOptions } from "./types";

export function spawnPtyIo(_options: ProcessIoOptions): Promise<ProcessIo> {
    return Promise.reject(new Error("tty is not available in this build of North"));
}
