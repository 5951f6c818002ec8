import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runScript } from "../kit/run-script";
import { createConversationStore } from "../../src/storage/conversations";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MODULE = join(ROOT, "src", "storage", "conversations.ts");

const dirs: string[] = [];
const temp = () => {
    const dir = mkdtempSync(join(tmpdir(), "north-conv-proc-"));
    dirs.push(dir);
    return dir;
};
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const WRITER = `
import { createConversationStore } from ${JSON.stringify(MODULE)};
const [dir, tag, count, startAt] = process.argv.slice(2);
const store = createConversationStore(dir, { indexIntervalMs: 0 });
while (Date.now() < Number(startAt)) {}
const ids: string[] = [];
for (let i = 0; i < Number(count); i++) {
    const log = store.start({ repoRoot: "/repo", model: tag });
    log.append({ type: "entry_added", entry: { id: "u" + i, role: "user", content: tag + " " + i } });
    log.append({ type: "entry_added", entry: { id: "a" + i, role: "assistant", content: "ok" } });
    log.close();
    ids.push(log.id);
}
console.log(JSON.stringify(ids));
`;

const KILLED = `
import { createConversationStore } from ${JSON.stringify(MODULE)};
const [dir, count] = process.argv.slice(2);
const store = createConversationStore(dir);
const log = store.start({ repoRoot: "/repo", model: "m" });
console.log(log.id);
for (let i = 0; i < Number(count); i++) {
    log.append({ type: "entry_added", entry: { id: "e" + i, role: "user", content: "x".repeat(200) } });
}
process.kill(process.pid, "SIGKILL");
`;

describe("conversations across processes", () => {
    it("two processes writing the index at once keep each other's entries", async () => {
        const dir = join(temp(), "conversations");
        const startAt = String(Date.now() + 1500);
        const count = "30";
        const [one, two] = await Promise.all([
            runScript(temp(), WRITER, [dir, "one", count, startAt]),
            runScript(temp(), WRITER, [dir, "two", count, startAt]),
        ]);
        expect(one.stderr).toBe("");
        expect(two.stderr).toBe("");
        const ids = [...JSON.parse(one.stdout), ...JSON.parse(two.stdout)] as string[];
        expect(new Set(ids).size).toBe(60);
        // Read index.json itself: list() would hide lost entries by rebuilding from the logs.
        const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8"));
        const indexed = index.conversations as Record<
            string,
            { messageCount: number; model: string }
        >;
        expect(Object.keys(indexed).sort()).toEqual([...ids].sort());
        expect(Object.values(indexed).every((r) => r.messageCount === 2)).toBe(true);
        expect(createConversationStore(dir).list()).toHaveLength(60);
    }, 30_000);

    it("loses no appended entry when the process is killed with SIGKILL", async () => {
        const dir = join(temp(), "conversations");
        const result = await runScript(temp(), KILLED, [dir, "500"]);
        expect(result.signal).toBe("SIGKILL");
        const id = result.stdout.trim();
        const store = createConversationStore(dir);
        const loaded = store.load(id);
        if (!loaded.ok) throw new Error(loaded.error);
        expect(loaded.warnings).toEqual([]);
        expect(loaded.conversation.entries).toHaveLength(500);
        expect(loaded.conversation.ended).toBe(false);
        expect(store.list()[0]).toMatchObject({ id, messageCount: 500 });
    }, 30_000);
});
