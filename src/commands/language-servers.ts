/**
 * Language servers in words, for `/lsp` and `north doctor`: each server's
 * state, what it runs, where its definition came from, how to install a
 * missing built-in one, and the memory all of them hold.
 */
import type { LanguageServerListing } from "../agent/protocol";
import type { LspServerStatus } from "../tools/lsp/types";
import { megabytes } from "../util/short-text";

/** How to get each built-in server's binary (by the built-in definitions' names). */
const INSTALL_HINTS: Record<string, string> = {
    typescript: "npm install -g typescript-language-server typescript",
    pyright: "npm install -g pyright",
    gopls: "go install golang.org/x/tools/gopls@latest (needs the go command)",
    clangd: "apt install clangd, brew install llvm, or the LLVM release",
    bash: "npm install -g bash-language-server (and shellcheck for its diagnostics)",
    "rust-analyzer": "rustup component add rust-analyzer",
};

/** How to install a missing server, when North knows it. */
export function installHint(server: LspServerStatus): string | undefined {
    return server.origin === "built-in" ? INSTALL_HINTS[server.name] : undefined;
}

/** `.ts/.tsx/...`: the extensions a server takes, shortened. */
function extensionsText(server: LspServerStatus): string {
    const shown = server.extensions.slice(0, 4).join(" ");
    return server.extensions.length > 4 ? `${shown} …` : shown;
}

/** One line on a server's state: what it is doing, or why it is not. */
export function stateText(server: LspServerStatus): string {
    switch (server.state) {
        case "missing": {
            const hint = installHint(server);
            return `not found (${server.command.split(" ")[0]})${hint ? `; install: ${hint}` : ""}`;
        }
        case "available":
            // Another server registered first takes every one of its extensions.
            if (server.lastError?.startsWith("not started")) return server.lastError;
            return `found; starts on the first ${extensionsText(server)} file`;
        case "disabled":
            return `disabled${server.lastError ? `: ${server.lastError}` : ""}`;
        case "stopped":
            return "stopped; starts again on the next file of its language";
        case "starting":
        case "running":
            return server.state;
    }
}

function serverLines(server: LspServerStatus): string[] {
    const facts = [stateText(server)];
    if (server.pid !== undefined) facts.push(`pid ${server.pid}`);
    if (server.rssBytes !== undefined) facts.push(megabytes(server.rssBytes));
    if (server.restarts > 0) facts.push(`${server.restarts} restart(s)`);
    if (server.pullDiagnostics !== undefined) {
        facts.push(`pull diagnostics: ${server.pullDiagnostics ? "yes" : "no"}`);
    }
    const lines = [`${server.name}: ${facts.join(" · ")}`];
    const where = [
        server.root ? `root ${server.root}` : "",
        `from ${server.origin}`,
        server.command,
    ];
    lines.push(`  ${where.filter(Boolean).join(" · ")}`);
    if (server.lastError && server.state !== "disabled" && server.state !== "available") {
        lines.push(`  last error: ${server.lastError}`);
    }
    return lines;
}

/** Resident memory of every server that reported it. */
export function totalMemory(servers: readonly LspServerStatus[]): number {
    return servers.reduce((sum, server) => sum + (server.rssBytes ?? 0), 0);
}

/** The `/lsp` listing. */
export function listingText(listing: LanguageServerListing): string {
    const lines = listing.servers.flatMap(serverLines);
    if (listing.note) lines.push(listing.note);
    if (listing.servers.length === 0 && !listing.note) lines.push("No language servers are known.");
    const live = listing.servers.filter((s) => s.state === "running").length;
    if (listing.servers.length > 0) {
        lines.push(
            `Memory of all servers: ${megabytes(totalMemory(listing.servers))} (${live} running)`
        );
    }
    return lines.join("\n");
}
