import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createConversationToolset } from "../../src/cli/toolset";
import type { LanguageService } from "../../src/tools/lsp/types";

describe("the conversation toolset", () => {
    it("offers the spec's read-only tools and the to-do list (it writes no file) in ask mode, and every tool in agent mode", () => {
        const dir = mkdtempSync(join(tmpdir(), "north-toolset-"));
        const toolset = createConversationToolset(dir);
        try {
            const readOnly = toolset.registry
                .list()
                .filter((t) => t.readOnly)
                .map((t) => t.name)
                .sort();
            expect(readOnly).toEqual(
                [
                    "read_file",
                    "search_text",
                    "find_files",
                    "list_root",
                    "read_readme",
                    "detect_languages",
                    "hotfiles",
                    "get_line_count",
                    "get_file_symbols",
                    "get_file_outline",
                    "expand_output",
                    "find_code_block",
                    "read_around",
                    "find_blocks",
                    "todo_write",
                ].sort()
            );
            const writers = toolset.registry
                .list()
                .filter((t) => !t.readOnly)
                .map((t) => [t.name, t.approvalPolicy]);
            expect(writers).toEqual([
                ["remember", "write"],
                ["edit_replace_exact", "write"],
                ["edit_insert_at_line", "write"],
                ["edit_after_anchor", "write"],
                ["edit_before_anchor", "write"],
                ["edit_replace_block", "write"],
                ["edit_by_anchor", "write"],
                ["edit_create_file", "write"],
                ["edit_apply_batch", "write"],
                ["shell_run", "shell"],
                // The background processes' tools: only the input a program gets is reviewed.
                ["process_read", "none"],
                ["process_send", "shell"],
                ["process_stop", "none"],
                ["web_fetch", "shell"],
            ]);
        } finally {
            toolset.dispose();
            rmSync(dir, { recursive: true, force: true });
        }
    });

    it("offers lsp (read-only, so ask mode has it) and lsp_rename (a reviewed write) only when some language server was found", () => {
        const dir = mkdtempSync(join(tmpdir(), "north-toolset-"));
        const found = { hasServers: () => true } as LanguageService;
        const none = { hasServers: () => false } as LanguageService;
        const withServers = createConversationToolset(dir, [], { languages: found });
        const without = createConversationToolset(dir, [], { languages: none });
        try {
            const names = (toolset: typeof without) => toolset.registry.list().map((t) => t.name);
            expect(withServers.registry.get("lsp")).toMatchObject({ readOnly: true });
            expect(withServers.registry.get("lsp_rename")).toMatchObject({
                readOnly: false,
                approvalPolicy: "write",
            });
            expect(names(without).filter((n) => n.startsWith("lsp"))).toEqual([]);
        } finally {
            withServers.dispose();
            without.dispose();
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
