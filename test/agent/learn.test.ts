import { mkdtempSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DISCOVERY_TOPICS, runLearningSession } from "../../src/agent/learn";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import { createProfileStore, projectHash } from "../../src/storage/profile";
import type { AnyToolDefinition } from "../../src/tools/types";
import { ScriptedProvider, type ScriptedReply, call, text } from "../kit/scripted-provider";
import { toolInput } from "../../src/tools/tool-input";

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;
const dirs: string[] = [];
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const tool = (name: string, readOnly: boolean): AnyToolDefinition => ({
    name,
    description: name,
    input: toolInput((z) => z.object({}).passthrough()),
    approvalPolicy: readOnly ? "none" : "write",
    readOnly,
    execute: async () => ({ ok: true, data: { from: name } }),
});

function runner(tools: AnyToolDefinition[]) {
    const executed: string[] = [];
    return {
        executed,
        list: () => tools,
        schemas: (filter?: (t: AnyToolDefinition) => boolean) =>
            tools
                .filter((t) => !filter || filter(t))
                .map((t) => ({ name: t.name, description: "", inputSchema: {} })),
        execute: async (
            name: string,
            input: unknown,
            ctx: { repoRoot: string; signal: AbortSignal }
        ) => {
            executed.push(name);
            return tools.find((t) => t.name === name)!.execute(input, ctx);
        },
    };
}

describe("project learning", () => {
    it("runs the 10 topics in order with read-only tools and reports progress", async () => {
        const replies: ScriptedReply[] = [];
        for (const topic of DISCOVERY_TOPICS) {
            replies.push(
                { blocks: [call(`c-${topic.title}`, "read_file", {})] },
                { blocks: [text(`- notes on ${topic.title}`)] }
            );
        }
        const provider = new ScriptedProvider(replies);
        const tools = runner([tool("read_file", true), tool("edit_x", false)]);
        const progress: Array<[number, string]> = [];
        const result = await runLearningSession({
            repoRoot: "/repo",
            model: sonnet,
            providerFor: async () => provider,
            tools,
            onProgress: (p, t) => progress.push([p, t]),
        });
        expect(result.learned).toEqual(DISCOVERY_TOPICS.map((t) => t.title));
        expect(
            result.markdown.startsWith(
                "# Project Profile\n\n## Project Summary\n\n- notes on Project Summary"
            )
        ).toBe(true);
        expect(progress[0]).toEqual([0, "Project Summary"]);
        expect(progress.at(-1)).toEqual([100, "done"]);
        expect(
            provider.requests.every((r) => r.tools.map((t) => t.name).join() === "read_file")
        ).toBe(true);
        expect(provider.requests[0]!.system).toContain("project profile");
    });

    it("stops a topic after 5 tool iterations and skips a failed topic, going on with the rest", async () => {
        const looping: ScriptedReply[] = Array.from({ length: 6 }, (_, i) => ({
            blocks: [call(`l${i}`, "read_file", {})],
        }));
        const provider = new ScriptedProvider([
            ...looping,
            { error: { kind: "auth", status: 401, message: "bad key", retryable: false } },
            { blocks: [text("third topic notes")] },
        ]);
        const tools = runner([tool("read_file", true)]);
        const result = await runLearningSession({
            repoRoot: "/repo",
            model: sonnet,
            providerFor: async () => provider,
            tools,
            topics: DISCOVERY_TOPICS.slice(0, 3),
        });
        expect(tools.executed).toHaveLength(5);
        expect(result.skipped.map((s) => s.topic)).toEqual(["Project Summary", "Architecture Map"]);
        expect(result.learned).toEqual(["Code Style and Conventions"]);
        expect(result.markdown).toContain("third topic notes");
    });
});

describe("profile storage", () => {
    it("saves, loads, survives deletion, and tracks a decline", () => {
        const data = mkdtempSync(join(tmpdir(), "north-profile-"));
        dirs.push(data);
        const store = createProfileStore(data, "/some/repo");
        expect(store.dir).toBe(join(data, "projects", projectHash("/some/repo")));
        expect(projectHash("/some/repo")).toMatch(/^[0-9a-f]{16}$/);
        expect(store.hasProfile()).toBe(false);
        store.saveProfile("# Project Profile\n");
        expect(store.loadProfile()).toBe("# Project Profile\n");
        unlinkSync(store.profilePath);
        expect(store.loadProfile()).toBeNull();
        store.markDeclined();
        expect(store.hasDeclined()).toBe(true);
        store.clearDeclined();
        expect(store.hasDeclined()).toBe(false);
    });
});
