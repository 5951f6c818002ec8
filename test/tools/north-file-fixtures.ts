import { promises as fs } from "node:fs";
import type { OpenSidecar } from "../../src/tools/north-file/sidecar";

/**
 * A sidecar opener whose files hold at most `failAfterBytes`: like a file size
 * limit or a full disk, a write is cut short at the limit and the next one
 * fails with `code`.
 */
export function failingSidecar(options: { failAfterBytes: number; code: string }): {
    open: OpenSidecar;
    writeCalls(): number;
} {
    let calls = 0;
    const open: OpenSidecar = async (path, flags) => {
        const handle = await fs.open(path, flags, 0o644);
        let size = flags === "a" ? (await handle.stat()).size : 0;
        return {
            async write(data, offset, length) {
                calls++;
                const room = options.failAfterBytes - size;
                if (room <= 0) {
                    throw Object.assign(new Error(`${options.code}: write failed`), {
                        code: options.code,
                    });
                }
                const n = Math.min(room, length);
                const { bytesWritten } = await handle.write(data, offset, n);
                size += bytesWritten;
                return { bytesWritten };
            },
            sync: () => handle.sync(),
            close: () => handle.close(),
        };
    };
    return { open, writeCalls: () => calls };
}
