/**
 * What every lsp request starts from: the asked file (inside the project,
 * readable), its language server (started on first use, synced from disk)
 * and, for position requests, the server position of the asked symbol.
 * Every failure is a tool error the model can act on; nothing here hangs
 * past the call's deadline or the turn's abort.
 */
import { extname } from "node:path";
import { pathToFileURL } from "node:url";
import type { Position } from "vscode-languageserver-protocol";
import { LSP_CALL_TIMEOUT_MS } from "../limits";
import { readTextFile } from "../text-file";
import { type ToolContext, type ToolResult, toolError, toolOk } from "../types";
import {
    type LspText,
    type PositionEncoding,
    characterOfIndex,
    encodingOf,
    indexOfColumn,
    lineAt,
    lspText,
} from "./navigate-positions";
import type { LanguageService, LspServerHandle } from "./types";

/** What the lsp tools share: the session's servers and how long a call may take. */
export interface NavigationDeps {
    languages: LanguageService;
    /** Default `LSP_CALL_TIMEOUT_MS`. */
    timeoutMs?: number;
}

/** A file the model asked about, known to its server. */
export interface AskedFile {
    handle: LspServerHandle;
    realPath: string;
    relPath: string;
    uri: string;
    doc: LspText;
    encoding: PositionEncoding;
}

/** A position the model named: a line, and the symbol's text on it or a column. */
export interface PositionArgs {
    path: string;
    line: number;
    symbol?: string;
    column?: number;
}

export interface AskedPosition extends AskedFile {
    position: Position;
    /** The identifier at the position (the symbol's text when one was given). */
    word: string;
}

const IDENTIFIER_CHAR = /[\p{L}\p{N}_$]/u;

/** One call's signal: the turn's, plus the call's own deadline. */
export interface CallSignal {
    signal: AbortSignal;
    /** The deadline, from the call's start. */
    timeoutMs: number;
    /** Why the call stopped: the turn was cancelled, or the deadline passed. */
    stopped(): "cancelled" | "timeout" | null;
}

export function callSignal(ctx: ToolContext, timeoutMs = LSP_CALL_TIMEOUT_MS): CallSignal {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([ctx.signal, deadline]);
    return {
        signal,
        timeoutMs,
        stopped: () => (ctx.signal.aborted ? "cancelled" : deadline.aborted ? "timeout" : null),
    };
}

/** A failed request as the model reads it; `server` names who failed. */
export function requestFailure(
    error: unknown,
    server: string,
    call: CallSignal
): ToolResult<never> {
    const stopped = call.stopped();
    if (stopped === "cancelled") return toolError("cancelled", "cancelled by the user");
    if (stopped === "timeout") {
        const seconds = Math.round(call.timeoutMs / 1000);
        return toolError(
            "language_server_error",
            `${server} did not answer within ${seconds} s; use search_text or read_file instead.`
        );
    }
    const message = error instanceof Error ? error.message : String(error);
    return toolError("language_server_error", `${server}: ${message}`);
}

/** Why no server answers for `realPath`, from the servers' status. */
function noServer(
    languages: LanguageService,
    relPath: string,
    realPath: string
): ToolResult<never> {
    const ext = extname(realPath).toLowerCase();
    const known = languages.status().filter((s) => s.extensions.includes(ext));
    const fallback = "use search_text, get_file_symbols or read_file instead.";
    if (known.length === 0) {
        return toolError(
            "language_server_error",
            `No language server handles ${ext || "extension-less"} files like ${relPath}; ${fallback}`
        );
    }
    const why = known.map((s) => {
        const state = s.state === "missing" ? `not installed (${s.command})` : s.state;
        return `${s.name}: ${state}${s.lastError ? ` (${s.lastError})` : ""}`;
    });
    return toolError(
        "language_server_error",
        `No language server is available for ${relPath}: ${why.join("; ")}; ${fallback}`
    );
}

/** Resolves and reads the asked file, starts its server and syncs the file from disk. */
export async function openAskedFile(
    deps: NavigationDeps,
    ctx: ToolContext,
    call: CallSignal,
    path: string
): Promise<ToolResult<AskedFile>> {
    const loaded = await readTextFile(ctx, path, { tool: "lsp" });
    if (!loaded.ok) return loaded;
    const { realPath, relPath, lines } = loaded.data;
    let handle: LspServerHandle | null;
    try {
        handle = await deps.languages.serverFor(realPath, call.signal);
        if (handle) await handle.sync(realPath);
    } catch (error) {
        return requestFailure(error, "the language server", call);
    }
    if (!handle && call.stopped()) {
        return requestFailure(null, "the language server", call);
    }
    if (!handle) return noServer(deps.languages, relPath, realPath);
    return toolOk({
        handle,
        realPath,
        relPath,
        uri: pathToFileURL(realPath).href,
        // Line breaks as read_file numbers them: the model's line numbers come from there.
        doc: lspText(lines.join("\n")),
        encoding: encodingOf(handle.capabilities.positionEncoding),
    });
}

/** The identifier around string index `index` of `text`; "" when none is there. */
function identifierAt(text: string, index: number): string {
    let start = index;
    let end = index;
    while (start > 0 && IDENTIFIER_CHAR.test(text[start - 1] ?? "")) start--;
    while (end < text.length && IDENTIFIER_CHAR.test(text[end] ?? "")) end++;
    return text.slice(start, end);
}

/** Which string indexes of `text` lie inside a quoted string ('…', "…", `…`). */
function quotedMask(text: string): boolean[] {
    const mask: boolean[] = [];
    let quote: string | null = null;
    for (let i = 0; i < text.length; i++) {
        const char = text[i] ?? "";
        mask.push(quote !== null);
        if (quote === null) {
            if (char === '"' || char === "'" || char === "`") quote = char;
        } else if (char === "\\") {
            mask.push(true);
            i++;
        } else if (char === quote) {
            quote = null;
        }
    }
    return mask;
}

/**
 * String indexes where `symbol` starts in `text`: whole identifiers first,
 * and of those the ones outside quotes (`import { greet } from "./greet"`
 * names the symbol once).
 */
function occurrences(text: string, symbol: string): number[] {
    const all: number[] = [];
    for (let at = text.indexOf(symbol); at !== -1; at = text.indexOf(symbol, at + 1)) all.push(at);
    const startsWord = IDENTIFIER_CHAR.test(symbol[0] ?? "");
    const endsWord = IDENTIFIER_CHAR.test(symbol[symbol.length - 1] ?? "");
    const whole = all.filter(
        (at) =>
            !(startsWord && IDENTIFIER_CHAR.test(text[at - 1] ?? "")) &&
            !(endsWord && IDENTIFIER_CHAR.test(text[at + symbol.length] ?? ""))
    );
    const found = whole.length > 0 ? whole : all;
    if (found.length < 2) return found;
    const quoted = quotedMask(text);
    const inCode = found.filter((at) => !quoted[at]);
    return inCode.length > 0 ? inCode : found;
}

/**
 * Where in `symbol` the position goes: its last identifier (`this.save` →
 * `save`, `Foo::bar()` → `bar`), or its start when it has none.
 */
function pointInSymbol(symbol: string): number {
    const words = [...symbol.matchAll(/[\p{L}\p{N}_$]+/gu)];
    return words.at(-1)?.index ?? 0;
}

/** The string index on `lineText` the model meant, or why it cannot be told. */
function indexOnLine(args: PositionArgs, lineText: string): ToolResult<number> {
    const shown = lineText.trim().slice(0, 120);
    if (args.column !== undefined) {
        const index = indexOfColumn(lineText, args.column);
        if (index === null) {
            return toolError(
                "out_of_range",
                `Line ${args.line} has ${[...lineText].length} characters; column ${args.column} is past its end: ${shown}`
            );
        }
        return toolOk(index);
    }
    if (args.symbol === undefined || args.symbol === "") {
        return toolError(
            "invalid_args",
            "Give symbol (its text on that line) or column for this operation."
        );
    }
    const found = occurrences(lineText, args.symbol);
    if (found.length === 0) {
        return toolError(
            "no_match",
            `Line ${args.line} does not contain "${args.symbol}": ${shown}`
        );
    }
    if (found.length > 1) {
        const columns = found.map((at) => [...lineText.slice(0, at)].length + 1).join(", ");
        return toolError(
            "ambiguous_match",
            `"${args.symbol}" occurs ${found.length} times on line ${args.line} (columns ${columns}); pass column.`
        );
    }
    return toolOk((found[0] ?? 0) + pointInSymbol(args.symbol));
}

/** The asked file and the server position of the symbol the model named. */
export async function openAskedPosition(
    deps: NavigationDeps,
    ctx: ToolContext,
    call: CallSignal,
    args: PositionArgs
): Promise<ToolResult<AskedPosition>> {
    const file = await openAskedFile(deps, ctx, call, args.path);
    if (!file.ok) return file;
    const { doc, encoding, relPath } = file.data;
    if (args.line < 1 || (args.column !== undefined && args.column < 1)) {
        return toolError("out_of_range", "line and column count from 1.");
    }
    if (args.line > doc.starts.length || (args.line > 1 && doc.text === "")) {
        return toolError(
            "out_of_range",
            `${relPath} has ${doc.text === "" ? 0 : doc.starts.length} lines; line ${args.line} does not exist.`
        );
    }
    const lineText = lineAt(doc, args.line - 1);
    const index = indexOnLine(args, lineText);
    if (!index.ok) return index;
    const position = {
        line: args.line - 1,
        character: characterOfIndex(lineText, index.data, encoding),
    };
    return toolOk({ ...file.data, position, word: identifierAt(lineText, index.data) });
}
