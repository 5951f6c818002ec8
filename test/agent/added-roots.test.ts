import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentSession } from "../../src/agent/session";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import { createReadTools, createToolRegistry } from "../../src/tools/index";
import { ScriptedProvider, call, text } from "../kit/scripted-provider";

const sonnet = BUILTIN_MODELS.find((m) => m.id.includes("sonnet"))!;
const dirs: string[] = [];
afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    dirs.push(dir);
    return dir;
}

/** A session over `repo` whose model reads `file` once, then answers. */
function sessionReading(repo: string, file: string, addedRoots?: string[]) {
    const provider = new ScriptedProvider([
        { blocks: [call("r1", "read_file", { path: file })] },
        { blocks: [text("done")] },
    ]);
    const session = new AgentSession({
        sessionId: "roots01",
        repoRoot: repo,
        addedRoots,
        model: sonnet,
        providerFor: async () => provider,
        tools: createToolRegistry(createReadTools()),
        approver: async () => ({ outcome: "approve" }),
    });
    return { session, provider };
}

/** What the model was told about its read_file call. */
function readResult(provider: ScriptedProvider): string {
    return JSON.stringify(provider.requests[1]!.messages.at(-1));
}

describe("--add-dir roots belong to their session", () => {
    it("two sessions of one project in one process: only the one given the directory reads it", async () => {
        const repo = tempDir("north-roots-repo-");
        const added = tempDir("north-roots-added-");
        const file = join(added, "notes.md");
        writeFileSync(file, "the added notes\n");
        const withDir = sessionReading(repo, file, [added]);
        const withoutDir = sessionReading(repo, file);
        await Promise.all([
            withDir.session.run("read it", { mode: "agent" }),
            withoutDir.session.run("read it", { mode: "agent" }),
        ]);
        expect(readResult(withDir.provider)).toContain("the added notes");
        expect(readResult(withoutDir.provider)).not.toContain("the added notes");
        expect(readResult(withoutDir.provider)).toContain("outside the project");
    });
});
