/**
 * Where a server's answer points, as the model reads it: a path relative to
 * the project with the line's trimmed text, or, outside the project (library
 * typings, the standard library), the path named and never read. Files a
 * `Read(...)` rule denies are named without their text.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Range } from "vscode-languageserver-protocol";
import { isPathInside } from "../../util/read-regular-file";
import { LSP_PREVIEW_CHARS, LSP_PREVIEW_MAX_FILE_BYTES } from "../limits";
import { looksBinary } from "../text-file";
import type { ToolContext } from "../types";
import {
    type LspText,
    type PositionEncoding,
    columnOfIndex,
    indexOfCharacter,
    lineAt,
    lspText,
} from "./navigate-positions";
import { withoutBom } from "../../util/without-bom";

/** One place in the answer. */
export interface NavLocation {
    /** Project-relative POSIX path; absolute outside the project. */
    path: string;
    /** 1-based. */
    line: number;
    /** 1-based, in characters; only where it helps the next call (definitions). */
    column?: number;
    /** The line, trimmed; absent outside the project or where reading is denied. */
    text?: string;
    outside?: true;
}

interface Placed {
    shown: string;
    /** In the project or an added directory. */
    inside: boolean;
    /** Real path of a file whose text may be shown; null otherwise. */
    readable: string | null;
}

/** Reads each file once per call, only inside the project (or an added directory). */
export class ProjectFiles {
    private readonly texts = new Map<string, Promise<LspText | null>>();
    private readonly places = new Map<string, Promise<Placed>>();

    constructor(
        private readonly ctx: ToolContext,
        private readonly encoding: PositionEncoding
    ) {}

    /** A location for `uri` at `range`'s start. */
    async locate(uri: string, range: Range | undefined, withColumn = false): Promise<NavLocation> {
        const placed = await this.place(uri);
        const line = (range?.start.line ?? 0) + 1;
        if (!placed.inside) return { path: placed.shown, line, outside: true };
        if (!placed.readable) return { path: placed.shown, line };
        const doc = await this.text(placed.readable);
        const location: NavLocation = { path: placed.shown, line };
        if (doc && range) {
            const lineText = lineAt(doc, range.start.line);
            if (withColumn) {
                location.column = columnOfIndex(
                    lineText,
                    indexOfCharacter(lineText, range.start.character, this.encoding)
                );
            }
            const trimmed = lineText.trim();
            location.text =
                trimmed.length > LSP_PREVIEW_CHARS
                    ? `${trimmed.slice(0, LSP_PREVIEW_CHARS)}…`
                    : trimmed;
        }
        return location;
    }

    /** How `uri` is shown, and whether it is a file of the project (or an added directory). */
    async where(uri: string): Promise<{ path: string; inside: boolean }> {
        const placed = await this.place(uri);
        return { path: placed.shown, inside: placed.inside };
    }

    private place(uri: string): Promise<Placed> {
        let placed = this.places.get(uri);
        if (!placed) {
            placed = this.resolve(uri);
            this.places.set(uri, placed);
        }
        return placed;
    }

    private async resolve(uri: string): Promise<Placed> {
        if (!uri.startsWith("file:")) return { shown: uri, inside: false, readable: null };
        let absPath: string;
        try {
            absPath = fileURLToPath(uri);
        } catch {
            return { shown: uri, inside: false, readable: null };
        }
        const realPath = await fs.realpath(absPath).catch(() => absPath);
        const { repoRoot, addedRoots = [], readDenial } = this.ctx;
        const root = [repoRoot, ...addedRoots].find((r) => isPathInside(r, realPath));
        if (root === undefined) return { shown: realPath, inside: false, readable: null };
        const shown =
            root === repoRoot
                ? path.relative(repoRoot, realPath).split(path.sep).join("/")
                : realPath;
        const denied = readDenial?.(absPath) ?? readDenial?.(realPath);
        return { shown, inside: true, readable: denied === undefined ? realPath : null };
    }

    private text(realPath: string): Promise<LspText | null> {
        let text = this.texts.get(realPath);
        if (!text) {
            text = readPreviewText(realPath);
            this.texts.set(realPath, text);
        }
        return text;
    }
}

async function readPreviewText(realPath: string): Promise<LspText | null> {
    try {
        const stat = await fs.stat(realPath);
        if (!stat.isFile() || stat.size > LSP_PREVIEW_MAX_FILE_BYTES) return null;
        const bytes = await fs.readFile(realPath);
        if (looksBinary(bytes)) return null;
        return lspText(withoutBom(bytes.toString("utf8")));
    } catch {
        return null;
    }
}
