/**
 * Resident memory of a language server and everything in its process group
 * (tsserver under typescript-language-server, clangd's workers), read from
 * /proc. Linux only: elsewhere nothing is measured and no cap applies.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The process group of a raw `/proc/<pid>/stat` (the field after state; the name may hold spaces). */
function groupOf(stat: string): number | undefined {
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const group = Number(fields[2]);
    return Number.isInteger(group) ? group : undefined;
}

function residentBytes(pid: string): number {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
}

/** Bytes resident in process group `group`; undefined where /proc cannot tell. */
export function groupResidentBytes(group: number): number | undefined {
    let entries: string[];
    try {
        entries = readdirSync("/proc");
    } catch {
        return undefined;
    }
    let total = 0;
    let found = false;
    for (const entry of entries) {
        if (!/^\d+$/.test(entry)) continue;
        try {
            if (groupOf(readFileSync(`/proc/${entry}/stat`, "utf8")) !== group) continue;
            total += residentBytes(entry);
            found = true;
        } catch {
            // The process ended while we looked.
        }
    }
    return found ? total : undefined;
}
