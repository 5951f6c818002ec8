/**
 * A failed command whose output shows the sandbox's refusal gets a note saying
 * so, and how the user can allow it: otherwise the model retries, or blames
 * the disk, the permissions or the network. Only the output is there to go
 * on; the messages are the C library's and the common tools' own.
 */
import { isAbsolute, normalize } from "node:path";
import { isPathInside } from "../../util/read-regular-file";
import type { SandboxPolicy } from "./policy";

const READ_ONLY = /Read-only file system|\bEROFS\b/;
/** A protected mount point cannot be renamed or removed. */
const BUSY = /Device or resource busy|\bEBUSY\b/;
const DENIED = /Permission denied|Operation not permitted|\bEACCES\b|\bEPERM\b/;
const NETWORK =
    /Network is unreachable|\bENETUNREACH\b|Could not resolve host|Temporary failure in name resolution|Name or service not known|\bEAI_AGAIN\b|getaddrinfo ENOTFOUND|Connection refused|\bECONNREFUSED\b|Failed to connect to/;
/** An absolute or `~` path in a line of output. */
const PATH_IN_LINE = /(?:^|[\s'"`‘(:])((?:~|\/)[^\s'"`’):]*)/g;

export interface BlockedNoteInput {
    exitCode: number | null;
    output: string;
    /** Where the command may write: the project, the temp dir, the extra folders. */
    writableRoots: readonly string[];
    home: string;
}

function pathsIn(line: string, home: string): string[] {
    const paths: string[] = [];
    for (const match of line.matchAll(PATH_IN_LINE)) {
        const raw = match[1]!;
        const abs = raw === "~" || raw.startsWith("~/") ? home + raw.slice(1) : raw;
        if (isAbsolute(abs)) paths.push(normalize(abs));
    }
    return paths;
}

/** Whether a "Permission denied" line names a path the sandbox keeps read-only. */
function deniedOutsideWritable(line: string, input: BlockedNoteInput): boolean {
    return pathsIn(line, input.home).some(
        (path) => !input.writableRoots.some((root) => isPathInside(root, path))
    );
}

/** The note for a failed sandboxed command, or undefined when nothing points at the sandbox. */
export function sandboxBlockedNote(
    policy: SandboxPolicy,
    input: BlockedNoteInput
): string | undefined {
    if (input.exitCode === 0) return undefined;
    const lines = input.output.split("\n");
    const wrote = lines.some(
        (line) =>
            READ_ONLY.test(line) ||
            BUSY.test(line) ||
            (DENIED.test(line) && deniedOutsideWritable(line, input))
    );
    const network = !policy.network && lines.some((line) => NETWORK.test(line));
    const notes: string[] = [];
    if (wrote) {
        notes.push(
            "The sandbox blocked a write: commands may write only inside the project and $TMPDIR " +
                "(the rest of the filesystem is read-only, and so are the project's protected " +
                "configuration files: .north/, .claude/, .mcp.json, .git/config, .git/hooks, …). " +
                'Write inside the project or $TMPDIR; the user can allow another folder with "sandbox": ' +
                '{ "writable": ["~/folder"] } in ~/.config/north/config.json.'
        );
    }
    if (network) {
        notes.push(
            "The sandbox blocked network access: commands have no network, 127.0.0.1 included. " +
                'The user can allow it with "sandbox": { "network": true } in ~/.config/north/config.json.'
        );
    }
    return notes.length > 0 ? notes.join(" ") : undefined;
}
