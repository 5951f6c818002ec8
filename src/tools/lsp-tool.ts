/**
 * lsp: what the project's language servers know — definition, references,
 * hover (type and docs), a file's symbols, the workspace's symbols. Offered
 * from a session's start whenever a server binary was found in a trusted
 * project (a tool list that changed mid-conversation would break the prompt
 * cache). Read-only; renames are lsp_rename's, a reviewed write.
 */
import { asRecord, baseName, plural, str } from "./display-text";
import { definition, documentSymbols, hover, references, workspaceSymbols } from "./lsp/navigate";
import { type NavigationDeps, callSignal } from "./lsp/navigate-target";
import { type InputOf, toolInput } from "./tool-input";
import { type ToolDefinition, type ToolResult, toolError } from "./types";

const OPERATIONS = [
    "definition",
    "references",
    "hover",
    "document_symbols",
    "workspace_symbols",
] as const;

const input = toolInput((z) =>
    z.object({
        operation: z.enum(OPERATIONS),
        path: z.string().optional(),
        // 1-based; checked against the file (a schema minimum would cost every request its text).
        line: z.number().int().optional(),
        symbol: z.string().optional(),
        column: z.number().int().optional(),
        query: z.string().optional(),
    })
);

export type LspInput = InputOf<typeof input>;

const DESCRIPTION =
    "Language server: definition, references, hover (type, docs) at path+line+symbol (its text on the " +
    "line) or column; document_symbols of path; workspace_symbols by query.";

const TITLES: Record<LspInput["operation"], string> = {
    definition: "Finding the definition of",
    references: "Finding references to",
    hover: "Looking up",
    document_symbols: "Listing symbols of",
    workspace_symbols: "Searching symbols",
};

function title(args: Record<string, unknown>): string | undefined {
    const operation = str(args.operation) as LspInput["operation"] | undefined;
    const verb = operation ? TITLES[operation] : undefined;
    if (!verb) return undefined;
    if (operation === "workspace_symbols") {
        const query = str(args.query);
        return query ? `${verb} "${query}"` : verb;
    }
    const file = str(args.path);
    if (operation === "document_symbols") return file ? `${verb} ${baseName(file)}` : verb;
    const what = str(args.symbol) ?? (typeof args.line === "number" ? `line ${args.line}` : "");
    return file ? `${verb} ${what} in ${baseName(file)}`.replace(/ {2,}/g, " ") : verb;
}

function resultSuffix(details: unknown): string {
    const data = asRecord(details);
    const count = (list: unknown, more: unknown) =>
        (Array.isArray(list) ? list.length : 0) + (typeof more === "number" ? more : 0);
    if (typeof data.total === "number" && Array.isArray(data.references)) {
        return ` - ${plural(data.total, "reference")}`;
    }
    if (Array.isArray(data.definitions)) {
        return ` - ${plural(count(data.definitions, data.more), "definition")}`;
    }
    if (Array.isArray(data.symbols)) {
        const total = typeof data.total === "number" ? data.total : count(data.symbols, data.more);
        return ` - ${plural(total, "symbol")}`;
    }
    return "";
}

/** Lines shown under a call: the places found, or the hover's first lines. */
const DETAIL_LINES = 5;

function resultDetail(details: unknown, full?: boolean): string[] {
    const data = asRecord(details);
    const places = [data.definitions, data.references, data.symbols].find(Array.isArray) as
        unknown[] | undefined;
    const lines: string[] = [];
    if (places && typeof data.path !== "string") {
        for (const place of places) {
            const p = asRecord(place);
            const at = `${str(p.path) ?? "?"}${typeof p.line === "number" ? `:${p.line}` : ""}`;
            const what = str(p.text) ?? (str(p.name) ? `${str(p.kind) ?? ""} ${str(p.name)}` : "");
            lines.push(what ? `${at}  ${what.trim()}` : at);
        }
    } else if (typeof data.text === "string") {
        lines.push(
            ...data.text.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("```"))
        );
    }
    return full ? lines : lines.slice(0, DETAIL_LINES);
}

function needs(fields: string, operation: string): ToolResult<never> {
    return toolError("invalid_args", `${operation} needs ${fields}.`);
}

export function createLspTool(deps: NavigationDeps): ToolDefinition<LspInput, unknown> {
    return {
        name: "lsp",
        description: DESCRIPTION,
        input,
        approvalPolicy: "none",
        readOnly: true,
        concurrent: true,
        hookAliases: ["LSP"],
        display: { title, resultSuffix, resultDetail },
        async execute(args, ctx) {
            const call = callSignal(ctx, deps.timeoutMs);
            const { operation, path, line } = args;
            switch (operation) {
                case "definition":
                case "references":
                case "hover": {
                    if (path === undefined || line === undefined)
                        return needs("path and line", operation);
                    const at = { path, line, symbol: args.symbol, column: args.column };
                    if (operation === "definition") return definition(deps, ctx, call, at);
                    if (operation === "references") return references(deps, ctx, call, at);
                    return hover(deps, ctx, call, at);
                }
                case "document_symbols":
                    if (path === undefined) return needs("path", operation);
                    return documentSymbols(deps, ctx, call, path);
                case "workspace_symbols":
                    if (!args.query) return needs("query (a name or part of one)", operation);
                    return workspaceSymbols(deps, ctx, call, { query: args.query, path });
            }
        },
    };
}
