/**
 * The lsp tool's read operations: definition, references, hover, document
 * symbols and workspace symbols, each one request to the file's server (or,
 * for workspace symbols, to every running one) turned into short, bounded
 * answers: paths, lines and one trimmed line of text.
 */
import type {
    DocumentSymbol,
    Hover,
    Location,
    LocationLink,
    MarkedString,
    MarkupContent,
    SymbolInformation,
    WorkspaceSymbol,
} from "vscode-languageserver-protocol";
import { extname, join } from "node:path";
import { collectFiles } from "../../util/ignore-walk";
import {
    LSP_HOVER_MAX_CHARS,
    LSP_LANGUAGE_SAMPLE_FILES,
    LSP_MAX_LOCATIONS,
    LSP_MAX_SYMBOLS,
} from "../limits";
import { isReadableRel } from "../read-denial";
import { type ToolContext, type ToolResult, toolError, toolOk } from "../types";
import { type NavLocation, ProjectFiles } from "./navigate-files";
import {
    type AskedPosition,
    type CallSignal,
    type NavigationDeps,
    type PositionArgs,
    openAskedFile,
    openAskedPosition,
    requestFailure,
} from "./navigate-target";
import type { LspServerHandle } from "./types";

export interface DefinitionResult {
    definitions: NavLocation[];
    /** Definitions beyond the listed ones. */
    more?: number;
}

export interface ReferencesResult {
    /** Every reference the server found, the declaration included. */
    total: number;
    references: NavLocation[];
    more?: number;
}

export interface HoverResult {
    /** Type and documentation as the server gives them (Markdown), bounded. */
    text: string;
    truncated?: true;
}

export interface OutlineSymbol {
    name: string;
    kind: string;
    line: number;
    endLine: number;
    detail?: string;
    children?: OutlineSymbol[];
}

export interface DocumentSymbolsResult {
    path: string;
    symbols: OutlineSymbol[];
    /** Symbols beyond the listed ones (nested ones count). */
    more?: number;
}

export interface FoundSymbol {
    name: string;
    kind: string;
    path: string;
    line?: number;
    container?: string;
    outside?: true;
}

export interface WorkspaceSymbolsResult {
    total: number;
    symbols: FoundSymbol[];
    more?: number;
}

/** LSP's SymbolKind numbers (1-based) as words. */
const SYMBOL_KINDS = [
    "file",
    "module",
    "namespace",
    "package",
    "class",
    "method",
    "property",
    "field",
    "constructor",
    "enum",
    "interface",
    "function",
    "variable",
    "constant",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "key",
    "null",
    "enum member",
    "struct",
    "event",
    "operator",
    "type parameter",
];

const kindName = (kind: number): string => SYMBOL_KINDS[kind - 1] ?? "symbol";

/** One request, its failure a tool error. */
async function ask<R>(
    handle: LspServerHandle,
    method: string,
    params: unknown,
    call: CallSignal
): Promise<ToolResult<R>> {
    try {
        call.signal.throwIfAborted();
        return toolOk(await handle.request<R>(method, params, call.signal));
    } catch (error) {
        return requestFailure(error, handle.name, call);
    }
}

function asLocations(answer: Location | Location[] | LocationLink[] | null): Array<{
    uri: string;
    range: Location["range"];
}> {
    if (!answer) return [];
    const list = Array.isArray(answer) ? answer : [answer];
    return list.map((item) =>
        "targetUri" in item
            ? { uri: item.targetUri, range: item.targetSelectionRange ?? item.targetRange }
            : { uri: item.uri, range: item.range }
    );
}

/**
 * The project's places first, then by path and line; the first
 * `LSP_MAX_LOCATIONS`, only those read for their text.
 */
async function placeAll(
    files: ProjectFiles,
    found: ReadonlyArray<{ uri: string; range: Location["range"] }>,
    withColumn: boolean
): Promise<{ listed: NavLocation[]; more?: number }> {
    const keyed = await Promise.all(found.map(async (f) => ({ f, ...(await files.where(f.uri)) })));
    keyed.sort(
        (a, b) =>
            Number(!a.inside) - Number(!b.inside) ||
            a.path.localeCompare(b.path) ||
            a.f.range.start.line - b.f.range.start.line ||
            a.f.range.start.character - b.f.range.start.character
    );
    const listed = await Promise.all(
        keyed.slice(0, LSP_MAX_LOCATIONS).map(({ f }) => files.locate(f.uri, f.range, withColumn))
    );
    const more = keyed.length - listed.length;
    return more > 0 ? { listed, more } : { listed };
}

export async function definition(
    deps: NavigationDeps,
    ctx: ToolContext,
    call: CallSignal,
    args: PositionArgs
): Promise<ToolResult<DefinitionResult>> {
    const at = await openAskedPosition(deps, ctx, call, args);
    if (!at.ok) return at;
    const { handle, uri, position, encoding } = at.data;
    const answer = await ask<Location | Location[] | LocationLink[] | null>(
        handle,
        "textDocument/definition",
        { textDocument: { uri }, position },
        call
    );
    if (!answer.ok) return answer;
    const found = asLocations(answer.data);
    if (found.length === 0) return toolError("no_match", noneNote(at.data, "definition"));
    const placed = await placeAll(new ProjectFiles(ctx, encoding), found, true);
    const result: DefinitionResult = { definitions: placed.listed };
    if (placed.more) result.more = placed.more;
    return toolOk(result);
}

function noneNote(at: AskedPosition, what: string): string {
    return `${at.handle.name} knows no ${what} for "${at.word || "the text"}" at ${at.relPath}:${at.position.line + 1}; check the line and symbol.`;
}

export async function references(
    deps: NavigationDeps,
    ctx: ToolContext,
    call: CallSignal,
    args: PositionArgs
): Promise<ToolResult<ReferencesResult>> {
    const at = await openAskedPosition(deps, ctx, call, args);
    if (!at.ok) return at;
    const { handle, uri, position, encoding } = at.data;
    const answer = await ask<Location[] | null>(
        handle,
        "textDocument/references",
        { textDocument: { uri }, position, context: { includeDeclaration: true } },
        call
    );
    if (!answer.ok) return answer;
    const found = answer.data ?? [];
    if (found.length === 0) return toolError("no_match", noneNote(at.data, "references"));
    const placed = await placeAll(new ProjectFiles(ctx, encoding), found, false);
    const result: ReferencesResult = { total: found.length, references: placed.listed };
    if (placed.more) result.more = placed.more;
    return toolOk(result);
}

function markedText(part: MarkedString | MarkupContent): string {
    if (typeof part === "string") return part;
    if ("language" in part) return `\`\`\`${part.language}\n${part.value}\n\`\`\``;
    return part.value;
}

export async function hover(
    deps: NavigationDeps,
    ctx: ToolContext,
    call: CallSignal,
    args: PositionArgs
): Promise<ToolResult<HoverResult>> {
    const at = await openAskedPosition(deps, ctx, call, args);
    if (!at.ok) return at;
    const { handle, uri, position } = at.data;
    const answer = await ask<Hover | null>(
        handle,
        "textDocument/hover",
        { textDocument: { uri }, position },
        call
    );
    if (!answer.ok) return answer;
    const contents = answer.data?.contents;
    const parts = contents === undefined ? [] : Array.isArray(contents) ? contents : [contents];
    const text = parts.map(markedText).join("\n\n").trim();
    if (text === "") return toolError("no_match", noneNote(at.data, "type or documentation"));
    if (text.length <= LSP_HOVER_MAX_CHARS) return toolOk({ text });
    return toolOk({ text: `${text.slice(0, LSP_HOVER_MAX_CHARS)}…`, truncated: true });
}

/** The tree, depth first, until `budget.left` symbols were taken; the rest are counted. */
function outlineOf(
    symbols: readonly DocumentSymbol[],
    budget: { left: number; skipped: number }
): OutlineSymbol[] {
    const out: OutlineSymbol[] = [];
    for (const symbol of symbols) {
        if (budget.left <= 0) {
            budget.skipped += 1 + countAll(symbol.children ?? []);
            continue;
        }
        budget.left--;
        const item: OutlineSymbol = {
            name: symbol.name,
            kind: kindName(symbol.kind),
            line: symbol.range.start.line + 1,
            endLine: symbol.range.end.line + 1,
        };
        if (symbol.detail) item.detail = symbol.detail.slice(0, 120);
        const children = outlineOf(symbol.children ?? [], budget);
        if (children.length > 0) item.children = children;
        out.push(item);
    }
    return out;
}

function countAll(symbols: readonly DocumentSymbol[]): number {
    return symbols.reduce((n, s) => n + 1 + countAll(s.children ?? []), 0);
}

export async function documentSymbols(
    deps: NavigationDeps,
    ctx: ToolContext,
    call: CallSignal,
    path: string
): Promise<ToolResult<DocumentSymbolsResult>> {
    const file = await openAskedFile(deps, ctx, call, path);
    if (!file.ok) return file;
    const { handle, uri, relPath } = file.data;
    const answer = await ask<DocumentSymbol[] | SymbolInformation[] | null>(
        handle,
        "textDocument/documentSymbol",
        { textDocument: { uri } },
        call
    );
    if (!answer.ok) return answer;
    // Older servers answer flat SymbolInformation; their containers become the tree's only level.
    const tree = (answer.data ?? []).map((s): DocumentSymbol =>
        "location" in s
            ? {
                  name: s.containerName ? `${s.containerName}.${s.name}` : s.name,
                  kind: s.kind,
                  range: s.location.range,
                  selectionRange: s.location.range,
              }
            : s
    );
    const budget = { left: LSP_MAX_SYMBOLS, skipped: 0 };
    const result: DocumentSymbolsResult = { path: relPath, symbols: outlineOf(tree, budget) };
    if (budget.skipped > 0) result.more = budget.skipped;
    return toolOk(result);
}

/**
 * A file of the project's main language (the most common extension a server
 * handles among the first files), so a workspace query can start its server.
 */
async function mainLanguageFile(
    deps: NavigationDeps,
    ctx: ToolContext,
    call: CallSignal
): Promise<string | null> {
    const files = await collectFiles(ctx.repoRoot, {
        maxFiles: LSP_LANGUAGE_SAMPLE_FILES,
        signal: call.signal,
    });
    const byExtension = new Map<string, { count: number; first: string }>();
    for (const rel of files) {
        const ext = extname(rel).toLowerCase();
        const seen = byExtension.get(ext);
        if (seen) seen.count++;
        else if (deps.languages.handles(join(ctx.repoRoot, rel)) && isReadableRel(ctx, rel)) {
            byExtension.set(ext, { count: 1, first: rel });
        }
    }
    const main = [...byExtension.values()].sort((a, b) => b.count - a.count)[0];
    return main?.first ?? null;
}

/**
 * Servers to ask: the one for `path`, every running one, and with neither,
 * the server of the project's main language (started now).
 */
async function workspaceServers(
    deps: NavigationDeps,
    ctx: ToolContext,
    call: CallSignal,
    path: string | undefined
): Promise<ToolResult<LspServerHandle[]>> {
    const handles = new Set(deps.languages.running());
    const start = path ?? (handles.size === 0 ? await mainLanguageFile(deps, ctx, call) : null);
    if (start !== null) {
        const file = await openAskedFile(deps, ctx, call, start);
        if (!file.ok) return file;
        handles.add(file.data.handle);
    }
    if (handles.size === 0) {
        return toolError(
            "language_server_error",
            "No file here is of a language a found server handles; use search_text instead."
        );
    }
    return toolOk([...handles]);
}

export async function workspaceSymbols(
    deps: NavigationDeps,
    ctx: ToolContext,
    call: CallSignal,
    args: { query: string; path?: string }
): Promise<ToolResult<WorkspaceSymbolsResult>> {
    const servers = await workspaceServers(deps, ctx, call, args.path);
    if (!servers.ok) return servers;
    const answers = await Promise.all(
        servers.data.map((handle) =>
            ask<Array<SymbolInformation | WorkspaceSymbol> | null>(
                handle,
                "workspace/symbol",
                { query: args.query },
                call
            )
        )
    );
    const failed = answers.find((a) => !a.ok);
    const found = answers.flatMap((a) => (a.ok ? (a.data ?? []) : []));
    if (found.length === 0 && failed && !failed.ok) return failed;
    const files = new ProjectFiles(ctx, "utf-16");
    const symbols = await Promise.all(
        found.map(async (s): Promise<FoundSymbol> => {
            const range = "range" in s.location ? s.location.range : undefined;
            const where = await files.where(s.location.uri);
            const symbol: FoundSymbol = { name: s.name, kind: kindName(s.kind), path: where.path };
            if (range) symbol.line = range.start.line + 1;
            if (s.containerName) symbol.container = s.containerName;
            if (!where.inside) symbol.outside = true;
            return symbol;
        })
    );
    // The project's own symbols first; each server's ranking kept within.
    const ordered = [...symbols.filter((s) => !s.outside), ...symbols.filter((s) => s.outside)];
    const listed = ordered.slice(0, LSP_MAX_LOCATIONS);
    const result: WorkspaceSymbolsResult = { total: ordered.length, symbols: listed };
    if (ordered.length > listed.length) result.more = ordered.length - listed.length;
    return toolOk(result);
}
