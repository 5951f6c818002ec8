/**
 * read_readme: the project's README from the root (README.md preferred, any
 * case and extension accepted), at most 8 KB.
 */
import { promises as fs } from "node:fs";
import { type InputOf, toolInput } from "./tool-input";
import { resolveSafePath } from "./path-guard";
import { refuseDeniedRead } from "./read-denial";
import { formatBytes, looksBinary } from "./text-file";
import { type ToolDefinition, toolError, toolOk } from "./types";
import { NAME_ONLY_DISPLAY } from "./display-text";
import { README_MAX_BYTES } from "./limits";

export const MAX_README_BYTES = README_MAX_BYTES;

const input = toolInput((z) => z.object({}));

export type ReadReadmeInput = InputOf<typeof input>;

export interface ReadmeResult {
    path: string;
    content: string;
    /** Size of the whole file. */
    bytes: number;
    truncated: boolean;
    /** Other README files at the root. */
    others?: string[];
    note?: string;
}

const README = /^readme(?:\.[\w.-]+)?$/i;

/** README.md first, then other Markdown, then plain text and the rest. */
function rank(name: string): number {
    if (name === "README.md") return 0;
    const ext = name.slice(6).toLowerCase();
    if (ext === ".md") return 1;
    if (ext === ".markdown" || ext === ".mdx") return 2;
    if (ext === "" || ext === ".txt") return 3;
    if (ext === ".rst" || ext === ".adoc" || ext === ".org") return 4;
    return 5;
}

/** Cuts `data` to `max` bytes at a line break when one is near, never inside a UTF-8 sequence. */
function cut(data: Buffer, max: number): string {
    let end = max;
    while (end > 0 && (data[end]! & 0xc0) === 0x80) end--;
    const nl = data.lastIndexOf(10, end - 1);
    if (nl > max - 1024) end = nl + 1;
    return data.subarray(0, end).toString("utf8");
}

export function createReadReadmeTool(): ToolDefinition<ReadReadmeInput, ReadmeResult> {
    return {
        name: "read_readme",
        description: "Read the README at the project root (README.md preferred), first 8 KB.",
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: NAME_ONLY_DISPLAY,
        hookAliases: ["Read"],
        async execute(_args, ctx) {
            let names: string[];
            try {
                const entries = await fs.readdir(ctx.repoRoot, { withFileTypes: true });
                names = entries
                    .filter(
                        (entry) =>
                            README.test(entry.name) && (entry.isFile() || entry.isSymbolicLink())
                    )
                    .map((entry) => entry.name)
                    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
            } catch (error) {
                return toolError("io_error", `Cannot list the project root: ${String(error)}`);
            }
            for (const name of names) {
                const resolved = await resolveSafePath(ctx.repoRoot, name, {
                    mustExist: true,
                    addedRoots: ctx.addedRoots,
                });
                if (!resolved.ok) continue;
                if (refuseDeniedRead(ctx, name, resolved.data.absPath, resolved.data.realPath))
                    continue;
                let data: Buffer;
                try {
                    const stat = await fs.stat(resolved.data.realPath);
                    if (!stat.isFile()) continue;
                    const handle = await fs.open(resolved.data.realPath, "r");
                    try {
                        const buf = Buffer.alloc(Math.min(stat.size, MAX_README_BYTES + 4));
                        const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
                        data = buf.subarray(0, bytesRead);
                    } finally {
                        await handle.close();
                    }
                    if (looksBinary(data)) continue;
                    const truncated = stat.size > MAX_README_BYTES;
                    let content = truncated ? cut(data, MAX_README_BYTES) : data.toString("utf8");
                    if (content.charCodeAt(0) === 0xfeff) content = content.slice(1);
                    const result: ReadmeResult = {
                        path: name,
                        content,
                        bytes: stat.size,
                        truncated,
                    };
                    const others = names.filter((other) => other !== name);
                    if (others.length > 0) result.others = others;
                    if (truncated) {
                        // The first line not shown whole (the cut one, or the next).
                        const next = content.split("\n").length;
                        result.note =
                            `Showing the first ${formatBytes(Buffer.byteLength(content))} of ${formatBytes(stat.size)}; ` +
                            `read_file ${name} with range starting at line ${next} for more.`;
                    }
                    return toolOk(result);
                } catch {
                    continue;
                }
            }
            return toolError(
                "not_found",
                'No README at the project root. Use list_root or find_files (pattern "**/README*") to look elsewhere.'
            );
        },
    };
}
